import type { Redis } from 'ioredis';
import { recordAdminChanges } from './admin-log/recorder.ts';
import { registerSigningKeyRoutes } from './signing-keys/routes.ts';
import type { TokenVerifier } from '../kit/auth/admin-guard.ts';
import { createApp, databaseOutage, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import { connectRedis } from '../kit/redis.ts';
import type { InvalidationBus } from '../kit/invalidation.ts';
import type { IdentityConfig } from './config.ts';
import type { ClientStore } from './oidc/clients.ts';
import type { ProviderHolder } from './oidc/mount.ts';
import type { PrincipalDirectory } from './principals/directory.ts';
import { createIdentityMetrics } from './metrics.ts';
import { refuseNul } from './nul-guard.ts';
import { identityErrorBody } from './error-body.ts';
import { identityAccess } from './access/checks.ts';
import { identityOpenApi } from './assembly/openapi.ts';
import { openServices } from './assembly/services.ts';
import { startProvider } from './assembly/provider.ts';
import { holdsScope } from './console/held-scope.ts';
import { registerRoutes } from './assembly/routes.ts';
import { startDeliveries } from './webhooks/deliver.ts';
import { startLogouts } from './oidc/back-channel-logout.ts';

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
  /** Whether a principal holds a scope now (console/held-scope.ts): what `platform start` gives audit for its console keys. */
  holdsScope(subject: string, scope: string): Promise<boolean>;
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

/** What the app holds open beside its database, released when it closes (or when building it fails). */
interface Held {
  timers: NodeJS.Timeout[];
  redis?: Redis | undefined;
  bus?: InvalidationBus | undefined;
}

/**
 * The identity service: the app with its access checks (assembly/ steps), its shared parts, the provider, every route.
 * Nothing stays open when a step fails.
 */
export async function buildIdentityApp(config: IdentityConfig): Promise<App> {
  const db = await openServiceDatabase('identity', config, { poolSize: POOL_SIZE, migrations: MIGRATIONS });
  const held: Held = { timers: [] };
  let app: App | undefined;
  try {
    held.redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
    const metrics = createIdentityMetrics();
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
      openapi: identityOpenApi(config.issuer),
    });
    // Before any route is registered, so every route has it: a NUL in a field is a 400, never a database error (a 500).
    app.addHook('preValidation', refuseNul);
    // Before any route too: every change through the management API and the marketplace goes to the change log.
    recordAdminChanges(app, db);
    app.addHook('onClose', async () => {
      for (const t of held.timers) clearInterval(t);
      await held.bus?.close();
      held.redis?.disconnect();
    });
    const a = await openServices({ config, app, db, redis: held.redis, metrics, timers: held.timers });
    held.bus = a.bus;
    // The loops' database errors go to the app's outage log with the requests', so an outage is one line, not one a poll.
    const outage = databaseOutage(app);
    const deliveries = startDeliveries(a.webhooks, config.webhookPollMs, outage);
    app.addHook('onClose', deliveries.stop);
    const provider = await startProvider(a);
    const verifier = await registerRoutes(a, provider, access);
    const logouts = startLogouts(
      { db, secretKey: config.secretKey, holder: provider.holder, log: a.log },
      config.webhookPollMs,
      outage,
    );
    app.addHook('onClose', logouts.stop);
    await registerSigningKeyRoutes(app, {
      db,
      secretKey: config.secretKey,
      issuer: config.issuer,
      propagationSeconds: config.keyRefreshSeconds,
      reloadKeys: provider.reloadKeys,
      bus: a.bus,
    });
    const { clients, accounts, scopes } = a;
    runtimes.set(app, {
      db,
      secretKey: config.secretKey,
      clients,
      accounts,
      holder: provider.holder,
      scopes,
      reloadKeys: provider.reloadKeys,
      verifier,
      holdsScope: (subject, scope) => holdsScope({ accounts, clients }, subject, scope),
    });
    return app;
  } catch (err) {
    for (const t of held.timers) clearInterval(t);
    if (app) await app.close().catch(() => {});
    else {
      held.redis?.disconnect();
      await db.close();
    }
    throw err;
  }
}
