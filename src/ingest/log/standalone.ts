import { createApp, databaseOutage, type App } from '../../kit/app.ts';
import { openServiceDatabase } from '../../kit/service-config.ts';
import type { IngestConfig } from '../config.ts';
import { createCommitter } from '../events/committer.ts';
import { createMetrics } from '../metrics.ts';
import pkg from '../../../package.json' with { type: 'json' };
import { startLoaders } from './loader.ts';
import { createLogMetrics, registerBacklogGauges } from './metrics.ts';
import { openLogPart } from './part.ts';

/**
 * Loaders in a process of their own (`platform ingest loader`), beside or instead of those in the ingest processes:
 * the same loaders, group commit and database as ingest, and the kit's `/health`, `/ready` (with the stream's
 * backlog) and `/metrics` for whoever runs it to watch, served only when given a port. Closing the app stops the
 * loaders (what they took is stored and acknowledged), then the group commit, the connection and the database.
 */
export async function buildLoaderApp(config: IngestConfig, migrations: URL, count: number): Promise<App> {
  const db = await openServiceDatabase('ingest', config, { poolSize: config.dbPoolSize, migrations });
  let log: Awaited<ReturnType<typeof openLogPart>> | undefined;
  try {
    log = await openLogPart(config, 'ingest-loader');
    const part = log;
    const metrics = createMetrics();
    const app = await createApp({
      name: 'ingest-loader',
      version: pkg.version,
      description: "Loads ingest's durable log (NATS JetStream) into PostgreSQL.",
      logLevel: config.logLevel,
      database: { db, migrations, checks: [part.readiness], details: () => part.details() },
      metrics: metrics.registry,
    });
    app.addHook('onClose', () => part.connection.close());
    const committer = createCommitter({
      db,
      metrics,
      log: app.log,
      outage: databaseOutage(app),
      concurrency: config.commitConcurrency,
      maxEvents: config.commitMaxEvents,
      maxPending: config.maxPendingEvents,
    });
    app.addHook('onClose', () => committer.close());
    registerBacklogGauges(metrics.registry, part.backlog);
    const loaders = startLoaders({
      nc: part.connection.nc,
      stream: config.jetstreamStream,
      consumer: config.jetstreamConsumer,
      committer,
      metrics: createLogMetrics(metrics.registry),
      log: app.log.child({ component: 'loader' }),
      count,
      batchSize: config.commitMaxEvents,
      inFlight: config.commitConcurrency,
      retryAfterMs: config.retryAfterSeconds * 1000,
    });
    app.addHook('onClose', () => loaders.stop());
    return app;
  } catch (err) {
    await log?.connection.close();
    await db.close();
    throw err;
  }
}
