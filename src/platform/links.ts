import type { App } from '../kit/app.ts';
import type { LoadedService } from '../kit/service.ts';
import { VerifierUnavailableError, type TokenVerifier } from '../kit/auth/admin-guard.ts';
import type { IdentityTokenLinks } from '../kit/links.ts';
import type { HeldScopeCheck } from '../kit/auth/held-scope.ts';
import type { IdentityConfig } from '../identity/config.ts';
import { PLATFORM_DASHBOARD_CLIENT_ID, platformWebClient } from '../identity/apps/built-in-clients.ts';
import { MIN_PASSWORD_LENGTH, ensureOwnerAccount } from '../identity/console/linked-owner.ts';
import { consoleClient } from '../identity/console/client.ts';
import { consoleRights, type ConsoleRight } from '../identity/principals/console-rights.ts';
import { dashboardPublicUrl, type DashboardConfig } from '../dashboard/config.ts';
import { CONSOLE_CALLBACK_PATH, type ConsoleService } from '../dashboard/console/links.ts';
import type { AuditServiceConfig } from '../audit/config.ts';
import type { IngestConfig } from '../ingest/config.ts';

/** The dashboard's id for the provider; an operator's own entry with this id in DASHBOARD_OIDC_PROVIDERS leaves it alone. */
export const PLATFORM_PROVIDER_ID = 'platform';
const SCOPES = ['openid', 'email', 'profile'];

export interface PlatformLinks {
  /** Which pairs were wired, for the start's log line ("dashboard → identity"). */
  wired: string[];
  /** Called with each app right after its build: a link that needs a running service's internals takes them here. */
  built(name: string, app: App): void;
}

/**
 * One product from the first minute (issue 12): when `platform start` runs identity and the dashboard in one process,
 * the dashboard signs people in with identity without an operator registering an app or setting variables. Identity
 * gets a built-in public client for the dashboard (PKCE, nothing secret to store), the dashboard gets the OpenID
 * provider `platform`, its first run gives the first owner an account at identity, and each person an admin adds later
 * gets one with a one-time link to choose its password. Services started alone, or a
 * dashboard whose operator configured `platform` himself, are left exactly as configured.
 */
export function linkServices(started: { name: string; loaded: LoadedService }[]): PlatformLinks {
  // The casts are safe: each config is the one its own service's loadConfig returned.
  const identity = started.find((s) => s.name === 'identity')?.loaded.config as IdentityConfig | undefined;
  const dashboard = started.find((s) => s.name === 'dashboard')?.loaded.config as DashboardConfig | undefined;
  const audit = started.find((s) => s.name === 'audit')?.loaded.config as AuditServiceConfig | undefined;
  const ingest = started.find((s) => s.name === 'ingest')?.loaded.config as IngestConfig | undefined;
  let identityApp: App | undefined;
  const wired: string[] = [];
  const consoleLinked = identity && dashboard && !dashboard.oidcProviders.some((p) => p.id === PLATFORM_PROVIDER_ID);
  const consoleOrigin = consoleLinked ? new URL(dashboardPublicUrl(dashboard)).origin : undefined;
  // Audit and ingest take identity's tokens, checked in identity's own store, unless their operator named an identity
  // service to introspect at (`<SERVICE>_IDENTITY_URL`): then they stay as configured.
  const verifier: TokenVerifier = async (token) => {
    if (!identityApp) throw new VerifierUnavailableError('the identity service is not running');
    const { identityRuntime } = await import('../identity/app.ts');
    return identityRuntime(identityApp).verifier(token);
  };
  const holdsScope: HeldScopeCheck = async (subject, scope) => {
    if (!identityApp) throw new VerifierUnavailableError('the identity service is not running');
    const { identityRuntime } = await import('../identity/app.ts');
    return identityRuntime(identityApp).holdsScope(subject, scope);
  };
  const tokenLinks = (): IdentityTokenLinks => ({
    verifier,
    holdsScope,
    corsOrigins: consoleOrigin ? [consoleOrigin] : [],
  });
  const linkedAudit = identity && audit && !audit.identityUrl ? audit : undefined;
  const linkedIngest = identity && ingest && !ingest.identityUrl ? ingest : undefined;
  if (linkedAudit) {
    linkedAudit.links = tokenLinks();
    wired.push('audit → identity');
  }
  if (linkedIngest) {
    linkedIngest.links = tokenLinks();
    wired.push('ingest → identity');
  }
  if (identity && dashboard && consoleLinked) {
    const client = platformWebClient({
      clientId: PLATFORM_DASHBOARD_CLIENT_ID,
      name: 'Dashboards',
      redirectUris: [`${dashboardPublicUrl(dashboard)}/api/v1/auth/${PLATFORM_PROVIDER_ID}/callback`],
      scopes: SCOPES,
    });
    // The web app is the platform's console: one more built-in client, for its calls to the services' APIs.
    const rights = consoleRights({ audits: audit?.requiredScope });
    const consoleApp = consoleClient({
      redirectUri: `${dashboardPublicUrl(dashboard)}${CONSOLE_CALLBACK_PATH}`,
      rights,
      refreshTokenTtl: identity.loginSessionTtl,
    });
    identity.links = {
      builtInClients: [...(identity.links?.builtInClients ?? []), client, consoleApp],
      consoleRights: rights,
      corsOrigins: [consoleOrigin!],
    };
    dashboard.links = {
      identity: {
        provider: {
          id: PLATFORM_PROVIDER_ID,
          issuer: identity.issuer,
          clientId: client.client_id,
          name: 'the platform account',
        },
        minPasswordLength: MIN_PASSWORD_LENGTH,
        ensureOwnerAccount: async (input) => {
          // Identity is built (and listening) before the dashboard, so a request reaching this has it.
          if (!identityApp) throw new Error('the identity service is not running');
          // Imported here: a process that starts neither service does not load identity's code (src/*/service.ts).
          const { identityRuntime } = await import('../identity/app.ts');
          // The first owner holds every right: the whole console is theirs from the first sign-in.
          return ensureOwnerAccount(identityRuntime(identityApp).db, input, rights);
        },
        inviteAccount: async (input) => {
          if (!identityApp) throw new Error('the identity service is not running');
          const { identityRuntime } = await import('../identity/app.ts');
          const { createHumanWithSetupLink, passwordLinkUrl } = await import('../identity/password-links/store.ts');
          // The page's "Sign in" leads back to the dashboard, where "Sign in with the platform account" starts.
          const made = await createHumanWithSetupLink(identityRuntime(identityApp).db, {
            email: input.email,
            name: input.name,
            ttlSeconds: identity.passwordLinkTtl,
            continueTo: `${dashboardPublicUrl(dashboard)}/`,
          });
          if (made.status === 'existing') return made;
          return {
            status: 'created',
            setupLink: passwordLinkUrl(identity.issuer, made.token),
            expiresAt: made.expiresAt,
          };
        },
        newPasswordLink: async (input) => {
          if (!identityApp) throw new Error('the identity service is not running');
          const { identityRuntime } = await import('../identity/app.ts');
          const { issueSetupLink } = await import('../identity/password-links/issue.ts');
          const { passwordLinkUrl } = await import('../identity/password-links/store.ts');
          // onlyLinkMade: a dashboard admin may renew the links Add user made, never reach into other accounts.
          const made = await issueSetupLink(identityRuntime(identityApp).db, {
            who: { email: input.email },
            ttlSeconds: identity.passwordLinkTtl,
            continueTo: `${dashboardPublicUrl(dashboard)}/`,
            onlyLinkMade: true,
          });
          return { setupLink: passwordLinkUrl(identity.issuer, made.token), expiresAt: made.expiresAt };
        },
      },
      console: {
        issuer: identity.issuer,
        clientId: consoleApp.client_id,
        redirectUri: `${dashboardPublicUrl(dashboard)}${CONSOLE_CALLBACK_PATH}`,
        scope: consoleApp.scope,
        services: consoleServices(identity.issuer, rights, { audit: linkedAudit, ingest: linkedIngest }),
      },
    };
    wired.push('dashboard → identity');
  }
  return {
    wired,
    built(name, app) {
      if (name === 'identity') identityApp = app;
    },
  };
}

/** The sections the console shows for the services started with it: identity's always, audits and events when linked. */
function consoleServices(
  issuer: string,
  rights: ConsoleRight[],
  linked: { audit: AuditServiceConfig | undefined; ingest: IngestConfig | undefined },
): ConsoleService[] {
  const scopeOf = (name: ConsoleRight['name']) => rights.find((r) => r.name === name)!.scope;
  const urlOf = (c: { publicUrl: string | undefined; port: number }) =>
    (c.publicUrl ?? `http://localhost:${c.port}`).replace(/\/+$/, '');
  return [
    { section: 'identity', url: issuer.replace(/\/+$/, ''), scope: scopeOf('identity') },
    ...(linked.audit ? [{ section: 'audits' as const, url: urlOf(linked.audit), scope: scopeOf('audits') }] : []),
    ...(linked.ingest ? [{ section: 'events' as const, url: urlOf(linked.ingest), scope: scopeOf('events') }] : []),
  ];
}
