import type { App } from '../kit/app.ts';
import type { LoadedService } from '../kit/service.ts';
import type { IdentityConfig } from '../identity/config.ts';
import { PLATFORM_DASHBOARD_CLIENT_ID, platformWebClient } from '../identity/apps/built-in-clients.ts';
import { MIN_PASSWORD_LENGTH, ensureOwnerAccount } from '../identity/principals/linked-owner.ts';
import { dashboardPublicUrl, type DashboardConfig } from '../dashboard/config.ts';

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
  let identityApp: App | undefined;
  const wired: string[] = [];
  if (identity && dashboard && !dashboard.oidcProviders.some((p) => p.id === PLATFORM_PROVIDER_ID)) {
    const client = platformWebClient({
      clientId: PLATFORM_DASHBOARD_CLIENT_ID,
      name: 'Dashboards',
      redirectUris: [`${dashboardPublicUrl(dashboard)}/api/v1/auth/${PLATFORM_PROVIDER_ID}/callback`],
      scopes: SCOPES,
    });
    identity.links = { builtInClients: [...(identity.links?.builtInClients ?? []), client] };
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
          return ensureOwnerAccount(identityRuntime(identityApp).db, input);
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
