import { join } from 'node:path';
import { createApp, type App } from '../kit/app.ts';
import { openDatabase, type Database } from '../kit/db.ts';
import { migrate } from '../kit/migrations.ts';
import { databaseUrlOf } from '../kit/service-config.ts';
import { resolveSecretKey } from '../kit/secret-key.ts';
import { requireAdmin } from './admin/auth.ts';
import { registerAdminRoutes } from './admin/routes.ts';
import { createCommitter } from './events/committer.ts';
import { registerEventRoutes } from './events/routes.ts';
import { createKeyResolver } from './projects/key-resolver.ts';
import type { IngestConfig } from './config.ts';
import { classifyIngestError } from './errors.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { createMetrics } from './metrics.ts';
import { registerForwarding } from './forwarding/plugin.ts';
import { registerSdkRoutes } from './sdk/routes.ts';
import pkg from '../../package.json' with { type: 'json' };

export const INGEST_MIGRATIONS = new URL('./migrations/', import.meta.url);

export async function openIngestDatabase(config: IngestConfig): Promise<Database> {
  return openDatabase({ url: databaseUrlOf(config), dataDir: join(config.dataDir, 'ingest'), schema: 'ingest', poolSize: config.dbPoolSize, owner: 'ingest' });
}

/** Opens the database, applies migrations and returns the app, not listening; `app.close()` releases everything. */
export async function buildIngestApp(config: IngestConfig): Promise<App> {
  const db = await openIngestDatabase(config);
  try {
    await migrate(db, INGEST_MIGRATIONS);
    return await assemble(config, db);
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function assemble(config: IngestConfig, db: Database): Promise<App> {
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const metrics = createMetrics();
  const app = await createApp({
    name: 'ingest',
    version: pkg.version,
    description: 'Telemetry event ingestion: validates batches of events, stores them durably and forwards them to analytics providers.',
    logLevel: config.logLevel,
    bodyLimit: 1024 * 1024,
    classify: classifyIngestError,
    openapi: {
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Svc-API-Key' },
          adminToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  // Registered first so it runs last: every other onClose hook (background work) still has the database.
  app.addHook('onClose', async () => {
    await db.close();
  });
  const adminGuard = requireAdmin(config);
  const keys = createKeyResolver(db, config.keyCacheSeconds);
  const committer = createCommitter({
    db,
    metrics,
    log: app.log,
    concurrency: config.commitConcurrency,
    maxEvents: config.commitMaxEvents,
    maxPending: config.maxPendingEvents,
  });
  app.addHook('onClose', async () => {
    await committer.close();
  });

  registerHealthRoutes(app, db);
  app.get('/metrics', { schema: { summary: 'Prometheus metrics', hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  registerEventRoutes(app, {
    keys,
    committer,
    metrics,
    allowedOrigins: config.allowedOrigins,
    retryAfterSeconds: config.retryAfterSeconds,
    commitTimeoutSeconds: config.commitTimeoutSeconds,
  });
  registerAdminRoutes(app, { db, keys, requireAdmin: adminGuard });
  registerSdkRoutes(app);
  await registerForwarding(app, { db, config, secretKey, registry: metrics.registry, requireAdmin: adminGuard });
  return app;
}
