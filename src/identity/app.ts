import { registerFastIntrospection } from './oidc/fast-introspection.ts';
import { registerFastToken } from './oidc/fast-token.ts';
import { CredentialLookup } from './credentials/lookup.ts';
import { createApp, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import { BUILT_IN_SCOPES, type IdentityConfig } from './config.ts';
import { ClientStore } from './oidc/clients.ts';
import { PrincipalDirectory } from './principals/directory.ts';
import { buildProvider, ROUTES } from './oidc/provider.ts';
import { mountProvider, type ProviderHolder } from './oidc/mount.ts';
import { loadSigningKeys } from './oidc/signing-keys.ts';
import { purgeExpired } from './oidc/adapter.ts';
import { registerPages } from './pages/interaction-routes.ts';
import { PROVIDER_PAGES } from './pages/provider-pages.ts';
import { CsrfTokens } from './pages/csrf.ts';
import { connectRedis } from '../kit/redis.ts';
import { openInvalidationBus, type InvalidationBus } from '../kit/invalidation.ts';
import { memoryThrottle, redisThrottle, withFallback, type Throttle } from '../kit/throttle.ts';
import { registerAdmin } from './admin/routes.ts';
import { createIdentityMetrics } from './metrics.ts';
import { refuseNul } from './nul-guard.ts';
import { identityErrorBody } from './error-body.ts';
import { localTokenVerifier } from './admin/guard.ts';
import { OrganizationTokens } from './organizations/token-scope.ts';
import { smtpMailer } from './invites/mailer.ts';
import { registerInviteeRoutes } from './invites/routes.ts';
import { registerAccountPages } from './account/routes.ts';
import { registerPersonDelegationRoutes } from './delegation/routes.ts';
import { registerAgentPages } from './delegation/page-routes.ts';
import { registerConsentPages } from './consent/page-routes.ts';
import { registerSessionPages } from './sessions/page-routes.ts';
import { OIDC_PATHS, oidcComponents } from './oidc/openapi.ts';
import { adminSecurityScheme, createAdminGuard, type TokenVerifier } from '../kit/auth/admin-guard.ts';
import { DPOP_SCHEME_NOTE, dpopCheck } from '../kit/auth/dpop.ts';
import { memoryProofIds, redisProofIds } from '../kit/auth/dpop-replay.ts';
import { secondFactor } from './mfa/interaction.ts';
import { registerAccountSecurity } from './mfa/account-routes.ts';
import { identityAccess } from './access/checks.ts';
import { LOGIN_SESSION_SCHEME } from './access/rules.ts';
import { registerPasskeyAssets } from './mfa/assets.ts';
import { registerMarketplace } from './marketplace/routes.ts';
import { registerStripeWebhook } from './billing/webhook-route.ts';
import { socialProviders } from './social/registry.ts';
import { registerSocialLogin, signInButtons } from './social/routes.ts';
import { registerLinkedAccounts } from './social/account-routes.ts';
import { linkedScopes, registerConsole } from './console/register.ts';
import { recordAdminChanges } from './admin-log/recorder.ts';
import { registerSigningKeyRoutes } from './signing-keys/routes.ts';

export const IDENTITY_VERSION = '0.1.0';
export const MIGRATIONS = new URL('./migrations/', import.meta.url);

/** What tests and the CLI reach inside a built identity app. */
export interface IdentityRuntime {
  db: Database;
  secretKey: Buffer;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  holder: ProviderHolder;
  scopes: string[];
  /** Looks for rotated signing keys now (a timer also does it every IDENTITY_KEY_REFRESH_SECONDS). */
  reloadKeys(): Promise<boolean>;
  /** Checks an access token in identity's own store: what `platform start` gives the services it links (audit, ingest). */
  verifier: TokenVerifier;
}

const runtimes = new WeakMap<App, IdentityRuntime>();

export function identityRuntime(app: App): IdentityRuntime {
  const r = runtimes.get(app);
  if (!r) throw new Error('not an identity app');
  return r;
}

const POOL_SIZE = 16;

export async function openIdentityDatabase(config: IdentityConfig): Promise<Database> {
  return openServiceDatabase('identity', config, { poolSize: POOL_SIZE });
}

export async function buildIdentityApp(config: IdentityConfig): Promise<App> {
  const secretKey = config.secretKey;
  const db = await openServiceDatabase('identity', config, { poolSize: POOL_SIZE, migrations: MIGRATIONS });
  let app: App | undefined;
  const timers: NodeJS.Timeout[] = [];
  let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
  let bus: InvalidationBus | undefined;
  try {
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
    const metrics = createIdentityMetrics();
    const oidc = oidcComponents(config.issuer);
    // Every route declares who may call it (access/rules.ts); the checks get what they need once it is built, below.
    const access = identityAccess();
    app = await createApp({
      name: 'identity',
      version: IDENTITY_VERSION,
      description:
        'OAuth 2.0 / OpenID Connect server and identity records. The OAuth endpoints are described by /.well-known/openid-configuration.',
      logLevel: config.logLevel,
      bodyLimit: 64 * 1024,
      errorBody: identityErrorBody,
      database: { db, migrations: MIGRATIONS },
      access: access.checks,
      metrics: metrics.registry,
      openapi: {
        servers: [{ url: config.issuer, description: 'the issuer (IDENTITY_ISSUER)' }],
        paths: OIDC_PATHS,
        components: {
          schemas: oidc.schemas,
          securitySchemes: {
            ...oidc.securitySchemes,
            ...adminSecurityScheme(
              'An access token of this service with the `admin` scope, issued to a platform admin; or `IDENTITY_ADMIN_TOKEN`.',
            ),
            personToken: {
              type: 'http',
              scheme: 'bearer',
              description: `An access token of this service issued to the signed-in person (any app, any scope). ${DPOP_SCHEME_NOTE}`,
            },
            ...LOGIN_SESSION_SCHEME,
          },
        },
        tags: [
          { name: 'oauth', description: 'OAuth 2.0 and OpenID Connect endpoints (answered by oidc-provider)' },
          {
            name: 'sign-in',
            description: 'The sign-in, consent, sign-out, change-password and invitation pages (HTML)',
          },
          {
            name: 'management',
            description: 'Principals, organizations, applications, secrets, tokens and consents (admin scope).',
          },
          { name: 'invitations', description: "The invited person's side of an invitation." },
          { name: 'account', description: "The signed-in person's own account (their access token, any app)." },
          {
            name: 'agents',
            description:
              "A person's own agents: approvals, pending requests, delegated tokens and the exchange record.",
          },
          {
            name: 'billing',
            description: "Organizations' subscriptions, moved by the payment provider's (Stripe's) webhooks.",
          },
          {
            name: 'marketplace',
            description:
              "Listings, licenses and seats: a person's token or a platform admin's; what each may do is decided by their memberships (docs/identity.md).",
          },
        ],
      },
    });
    // Before any route is registered, so every route has it: a NUL in a field is a 400, never a database error (a 500).
    app.addHook('preValidation', refuseNul);
    // Before any route too: every change through the management API and the marketplace goes to the change log.
    recordAdminChanges(app, db);
    app.addHook('onClose', async () => {
      for (const t of timers) clearInterval(t);
      await bus?.close();
      redis?.disconnect();
    });
    const log = app.log;
    // Cached apps, secrets and principals are dropped on every instance at once when one of them changes.
    bus = await openInvalidationBus({ redisUrl: config.redisUrl, service: 'identity', log, publisher: redis });
    // Sign-in slow-down per account and address: shared by every instance through Redis when configured.
    const localThrottle = memoryThrottle({ freeFailures: config.signInFreeFailures });
    const throttle: Throttle = redis
      ? withFallback(
          redisThrottle(redis, { freeFailures: config.signInFreeFailures, prefix: 'identity:signin:' }),
          localThrottle,
          log,
        )
      : localThrottle;
    const clients = new ClientStore(db, 5_000, bus);
    const accounts = new PrincipalDirectory(db, 5_000, bus);
    const scopes = [...new Set([...BUILT_IN_SCOPES, ...config.extraScopes, ...linkedScopes(config)])];
    const keys = await loadSigningKeys(db, secretKey);
    const credentials = new CredentialLookup(db);
    const make = (signingKeys: typeof keys.privateKeys) => {
      const provider = buildProvider({
        issuer: config.issuer,
        db,
        secretKey,
        clients,
        accounts,
        scopes,
        loginSessionTtl: config.loginSessionTtl,
        signingKeys,
        log,
        pages: PROVIDER_PAGES,
        delegationMaxDepth: config.delegationMaxDepth,
        credentials,
        builtInClients: config.links?.builtInClients ?? [],
      });
      metrics.observe(provider);
      return provider;
    };
    const holder: ProviderHolder = { current: make(keys.privateKeys) };
    let keysVersion = keys.version;
    const reloadKeys = async () => {
      const next = await loadSigningKeys(db, secretKey);
      if (next.version === keysVersion) return false;
      holder.current = make(next.privateKeys);
      keysVersion = next.version;
      log.info({ keys: next.privateKeys.map((k) => k.kid) }, 'signing keys reloaded');
      return true;
    };
    timers.push(
      setInterval(
        () => void reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed')),
        config.keyRefreshSeconds * 1000,
      ),
    );
    timers.push(
      setInterval(
        () => void purgeExpired(db).catch((err) => log.error({ err }, 'purge of expired artifacts failed')),
        10 * 60_000,
      ),
    );
    for (const t of timers) t.unref();

    // POST /oauth/introspect, and the client-credentials grant, the API-key exchange and key-pair assertions at POST /oauth/token, are answered by
    // routes of their own in the ordinary case (oidc/fast-introspection.ts, oidc/fast-token.ts); the rest goes to the provider.
    await registerFastIntrospection(app, { holder, clients, accounts, db, issuer: config.issuer });
    await registerFastToken(app, {
      holder,
      clients,
      accounts,
      db,
      credentials,
      scopes: new Set(scopes),
      issuer: config.issuer,
      tokenEndpoint: new URL(ROUTES.token, config.issuer).href,
      onIssued: metrics.fastGrantSucceeded,
    });
    await mountProvider(app, holder, config.issuer);
    const csrf = new CsrfTokens(secretKey);
    const upstream = { providers: socialProviders(config), csrf };
    const second = secondFactor({
      db,
      secretKey,
      accounts,
      csrf,
      throttle,
      issuer: config.issuer,
      loginSessionTtl: config.loginSessionTtl,
    });
    await registerPages(app, {
      db,
      holder,
      accounts,
      issuer: config.issuer,
      loginSessionTtl: config.loginSessionTtl,
      csrf,
      throttle,
      secondFactor: second,
      signInExtras: upstream.providers.size ? signInButtons(upstream) : undefined,
    });
    await registerAccountSecurity(app, { db, secretKey, accounts, csrf, issuer: config.issuer });
    registerPasskeyAssets(app);
    await registerSocialLogin(app, {
      db,
      secretKey,
      holder,
      accounts,
      csrf,
      issuer: config.issuer,
      loginSessionTtl: config.loginSessionTtl,
      providers: upstream.providers,
      signup: config.socialSignup,
      secondFactor: second,
    });
    const verifier = localTokenVerifier(
      holder,
      accounts,
      clients,
      db,
      new OrganizationTokens(db),
      config.links?.builtInClients.map((c) => c.client_id),
    );
    // Seen DPoP proof ids: shared by every instance through Redis when configured, and by the admin guard and the
    // routes outside it that take a person's token.
    const proofIds = redis ? redisProofIds(redis, 'identity:dpop:', log) : memoryProofIds();
    const dpop = dpopCheck({ realm: 'identity', publicUrl: config.issuer, proofIds });
    const guard = createAdminGuard({
      realm: 'identity',
      serviceTokens: [config.adminToken],
      verifier,
      howToEnable: 'sign in as a platform admin, or set IDENTITY_ADMIN_TOKEN',
      publicUrl: config.issuer,
      proofIds,
    });
    access.connect({ guard, verifier, dpop, adminToken: config.adminToken, db, accounts });
    const invites = {
      db,
      mailer: smtpMailer(config.smtpUrl, config.mailFrom, log),
      inviteTtl: config.inviteTtl,
      inviteLink: config.inviteLink ?? new URL('/invites/accept', config.issuer).href,
    };
    await registerAgentPages(app, { db, accounts, csrf, issuer: config.issuer });
    await registerConsentPages(app, { db, accounts, csrf, issuer: config.issuer });
    const providerNames = new Map([...upstream.providers].map(([id, p]) => [id, p.name]));
    await registerSessionPages(app, { db, accounts, csrf, issuer: config.issuer, providerNames });
    await registerLinkedAccounts(app, {
      db,
      secretKey,
      accounts,
      csrf,
      issuer: config.issuer,
      providers: upstream.providers,
    });
    await registerAdmin(app, {
      db,
      clients,
      accounts,
      scopes,
      invites,
      passwordLinks: { issuer: config.issuer, passwordLinkTtl: config.passwordLinkTtl },
    });
    await registerInviteeRoutes(app, { db });
    await registerAccountPages(app, {
      db,
      accounts,
      throttle,
      issuer: config.issuer,
      loginSessionTtl: config.loginSessionTtl,
      secretKey,
      holder,
    });
    await registerPersonDelegationRoutes(app, { db, accounts });
    await registerMarketplace(app, { db });
    await registerConsole(app, { db, accounts, config, scopes });
    await registerSigningKeyRoutes(app, {
      db,
      secretKey,
      issuer: config.issuer,
      propagationSeconds: config.keyRefreshSeconds,
      reloadKeys,
      bus,
    });
    await registerStripeWebhook(app, { db, secrets: config.stripeWebhookSecrets });

    runtimes.set(app, { db, secretKey, clients, accounts, holder, scopes, reloadKeys, verifier });
    return app;
  } catch (err) {
    for (const t of timers) clearInterval(t);
    if (app) await app.close().catch(() => {});
    else {
      redis?.disconnect();
      await db.close();
    }
    throw err;
  }
}
