import { createApp, databaseOutage, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import { openInvalidationBus } from '../kit/invalidation.ts';
import { adminGuardFromConfig, checkIdentityLink } from '../kit/auth/config.ts';
import { redisProofIds } from '../kit/auth/dpop-replay.ts';
import { connectRedis } from '../kit/redis.ts';
import { adminSecurityScheme } from '../kit/auth/admin-guard.ts';
import { registerAdminRoutes } from './admin/routes.ts';
import { registerInternalUserRoutes } from './admin/internal-users-routes.ts';
import { registerOriginRoutes } from './admin/origins-routes.ts';
import { createProjectOriginCache } from './projects/origin-cache.ts';
import { registerErasureRoutes } from './erasure/routes.ts';
import { createSuppressionCache } from './erasure/suppressions.ts';
import { createTrackingPlanCache } from './tracking-plan/cache.ts';
import { registerTrackingPlanRoutes } from './tracking-plan/routes.ts';
import { createViolationTally } from './tracking-plan/violations.ts';
import { startErasureWorker } from './erasure/worker.ts';
import { erasureDigestKey } from './erasure/digest.ts';
import { sealErasures } from './erasure/store.ts';
import { registerReadRoutes } from './read/routes.ts';
import { registerLiveRoutes } from './live/routes.ts';
import { openLive } from './live/wire.ts';
import { createCommitter } from './events/committer.ts';
import { registerEventRoutes } from './events/routes.ts';
import { apiKeyCheck } from './events/api-key.ts';
import { createCorsPolicy } from './events/cors.ts';
import { API_CORS_HEADERS, API_CORS_METHODS, registerCors } from '../kit/cors.ts';
import { ingestAccess } from './access.ts';
import { EVENTS_NOT_ALLOWED } from './events/not-allowed-doc.ts';
import { createApiKeyLookup } from '../kit/api-keys/lookup.ts';
import { INGEST_KEYS } from './projects/keys.ts';
import type { IngestConfig } from './config.ts';
import { classifyIngestError } from './errors.ts';
import { createMetrics, type IngestMetrics } from './metrics.ts';
import { logEnabled } from './log/config.ts';
import type { LogPart } from './log/part.ts';
import { registerForwarding } from './forwarding/plugin.ts';
import { registerSdkRoutes } from './sdk/routes.ts';
import { registerRetentionRoutes } from './retention/routes.ts';
import { startPartitionMaintenance } from './retention/schedule.ts';
import pkg from '../../package.json' with { type: 'json' };

export const INGEST_MIGRATIONS = new URL('./migrations/', import.meta.url);

export async function openIngestDatabase(config: IngestConfig): Promise<Database> {
  return openServiceDatabase('ingest', config, { poolSize: config.dbPoolSize });
}

/** Opens the database, applies migrations and returns the app, not listening; `app.close()` releases everything. */
export async function buildIngestApp(config: IngestConfig): Promise<App> {
  const db = await openServiceDatabase('ingest', config, {
    poolSize: config.dbPoolSize,
    migrations: INGEST_MIGRATIONS,
  });
  try {
    return await assemble(config, db);
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function assemble(config: IngestConfig, db: Database): Promise<App> {
  // Before the app exists, so a half-configured identity link stops the start with nothing to close but the database.
  checkIdentityLink('ingest', config);
  const metrics = createMetrics();
  // Every route declares who may call it (access.ts); the checks get what they need once it is built, below.
  const access = ingestAccess();
  // The log, when turned on, before the app: /ready reports its backlog, and a cluster that cannot be reached, or
  // cannot hold the stream, stops the start.
  // Imported only then: a process without the log holds none of the NATS client (docs/architecture.md, *Starting*).
  const logModule = logEnabled(config) ? await import('./log/part.ts') : undefined;
  const log = logModule ? await logModule.openLogPart(config, 'ingest') : undefined;
  let app: App;
  try {
    app = await createIngestApp(config, db, metrics, access, log);
  } catch (err) {
    await log?.connection.close();
    throw err;
  }
  // Registered before the group commit's hook, so the connection closes after the loaders have stored what they took.
  if (log) app.addHook('onClose', () => log.connection.close());
  try {
    return await wire(
      app,
      config,
      db,
      metrics,
      access,
      log && logModule ? { part: log, wire: logModule.wireLog } : undefined,
    );
  } catch (err) {
    await log?.connection.close();
    throw err;
  }
}

function createIngestApp(
  config: IngestConfig,
  db: Database,
  metrics: IngestMetrics,
  access: ReturnType<typeof ingestAccess>,
  log: LogPart | undefined,
): Promise<App> {
  return createApp({
    name: 'ingest',
    version: pkg.version,
    description:
      'Telemetry event ingestion: validates batches of events, stores them durably and forwards them to analytics providers.',
    logLevel: config.logLevel,
    bodyLimit: 1024 * 1024,
    retryAfterSeconds: config.retryAfterSeconds,
    classify: classifyIngestError,
    database: {
      db,
      migrations: INGEST_MIGRATIONS,
      ...(log ? { checks: [log.readiness], details: () => log.details() } : {}),
    },
    metrics: metrics.registry,
    access: access.checks,
    openapi: {
      paths: EVENTS_NOT_ALLOWED,
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Svc-API-Key' },
          ...adminSecurityScheme(
            '`INGEST_ADMIN_TOKEN`, or an access token of the identity service carrying the scope `ingest:admin`.',
          ),
        },
      },
    },
  });
}

async function wire(
  app: App,
  config: IngestConfig,
  db: Database,
  metrics: IngestMetrics,
  access: ReturnType<typeof ingestAccess>,
  log: { part: LogPart; wire: typeof import('./log/part.ts').wireLog } | undefined,
): Promise<App> {
  const secretKey = config.secretKey;
  // With Redis, a key revoked on one instance stops working on every instance at once, and a DPoP proof used at one
  // instance is refused at the others (one connection for both; the bus adds its subscriber).
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  app.addHook('onClose', async () => redis?.disconnect());
  const bus = await openInvalidationBus({
    redisUrl: config.redisUrl,
    service: 'ingest',
    log: app.log,
    publisher: redis,
  });
  app.addHook('onClose', () => bus.close());
  const guard = adminGuardFromConfig('ingest', config, {
    verifier: config.links?.verifier,
    proofIds: redis ? redisProofIds(redis, 'ingest:dpop:', app.log) : undefined,
  });
  // The admin API for the console's origin; `POST /v1/events` keeps its own CORS (events/cors.ts).
  registerCors(app, {
    origins: [...new Set([...config.corsOrigins, ...(config.links?.corsOrigins ?? [])])],
    methods: API_CORS_METHODS,
    headers: API_CORS_HEADERS,
    prefix: '/api/v1/',
  });
  const keys = createApiKeyLookup({ db, table: INGEST_KEYS, ttlSeconds: config.keyCacheSeconds, bus });
  const outage = databaseOutage(app);
  const projectOrigins = createProjectOriginCache({
    db,
    bus,
    ttlSeconds: config.keyCacheSeconds,
    log: app.log.child({ component: 'project-origins' }),
  });
  const cors = createCorsPolicy(config.allowedOrigins, projectOrigins);
  // The users erasures suppress, read before the first batch is taken (not on it), then kept as the origins are.
  const suppressions = createSuppressionCache({
    db,
    bus,
    ttlSeconds: config.keyCacheSeconds,
    log: app.log.child({ component: 'suppressions' }),
  });
  await suppressions.fresh();
  // The projects' tracking plans, kept the same way; the events breaking them are tallied and written every 5 s.
  const trackingPlans = {
    cache: createTrackingPlanCache({
      db,
      bus,
      ttlSeconds: config.keyCacheSeconds,
      log: app.log.child({ component: 'tracking-plans' }),
    }),
    tally: createViolationTally({ db, flushSeconds: 5, log: app.log.child({ component: 'tracking-plans' }) }),
  };
  await trackingPlans.cache.fresh();
  access.connect({
    guard,
    apiKey: apiKeyCheck({ keys, cors, outage, retryAfterSeconds: config.retryAfterSeconds }),
  });
  // Before the first event is taken: the daily partitions of today and the days ahead exist (retention/partitions.ts).
  const maintenance = await startPartitionMaintenance({
    db,
    config,
    log: app.log.child({ component: 'partitions' }),
    registry: metrics.registry,
  });
  app.addHook('onClose', () => maintenance.close());
  const committer = createCommitter({
    db,
    metrics,
    log: app.log,
    outage,
    concurrency: config.commitConcurrency,
    maxEvents: config.commitMaxEvents,
    maxPending: config.maxPendingEvents,
  });
  app.addHook('onClose', async () => {
    await committer.close();
  });
  // With the log on, requests publish to it and loaders (here, or in `platform ingest loader` processes) commit.
  const sink = log
    ? log.wire(app, log.part, {
        config,
        committer,
        metrics,
        publishTimeoutMs: config.commitTimeoutSeconds * 1000,
        retryAfterMs: config.retryAfterSeconds * 1000,
      })
    : committer;

  const live = await openLive(app, db, config);
  registerEventRoutes(app, {
    live,
    sink,
    suppressions,
    trackingPlans,
    metrics,
    cors,
    retryAfterSeconds: config.retryAfterSeconds,
    commitTimeoutSeconds: config.commitTimeoutSeconds,
    bodyTimeoutSeconds: config.bodyTimeoutSeconds,
  });
  registerAdminRoutes(app, { db, keys });
  registerOriginRoutes(app, { db, serviceOrigins: config.allowedOrigins, cache: projectOrigins });
  registerInternalUserRoutes(app, { db });
  registerTrackingPlanRoutes(app, { db, ...trackingPlans });
  // Every instance erases: the leases share the work out (erasure/erase.ts).
  // Erasures recorded before migration 014 get their digest before anything reads or lists them.
  const digestKey = erasureDigestKey(secretKey);
  await sealErasures(db, digestKey);
  const erasures = startErasureWorker({
    db,
    batchEvents: config.erasureBatchEvents,
    settleMs: (config.keyCacheSeconds + config.commitTimeoutSeconds) * 1000,
    backlog: log?.part.backlog,
    registry: metrics.registry,
    log: app.log.child({ component: 'erasure' }),
    outage,
  });
  app.addHook('onClose', () => erasures.close());
  // The counts tallied since the last write are written before the database is closed, as queued commits are.
  app.addHook('onClose', () => trackingPlans.tally.close());
  registerErasureRoutes(app, { db, suppressions, worker: erasures, digestKey });
  registerReadRoutes(app, { db });
  registerLiveRoutes(app, { db, hub: live });
  registerRetentionRoutes(app, { db, config, maintenance });
  registerSdkRoutes(app);
  await registerForwarding(app, { db, config, secretKey, registry: metrics.registry, outage });
  return app;
}
