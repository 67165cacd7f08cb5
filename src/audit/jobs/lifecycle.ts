import { databaseOutage, type App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { AuditServiceConfig } from '../config.ts';
import type { AuditMetrics } from '../metrics.ts';
import { startRetentionSweep } from './retention.ts';
import { JobWorker, type RunAudit } from './worker.ts';

/**
 * The app's queue work: its job worker, started when the app is ready and stopped when it closes (before the
 * browser and the database, registered earlier, since onClose hooks run in reverse order), and the retention sweep.
 */
export function startJobWork(
  app: App,
  db: Database,
  config: AuditServiceConfig,
  metrics: AuditMetrics,
  run: RunAudit,
): JobWorker {
  const worker = new JobWorker({
    db,
    log: app.log,
    metrics,
    run,
    concurrency: config.concurrency,
    leaseSeconds: config.leaseSeconds,
    maxAttempts: config.maxAttempts,
    pollMs: config.pollMs,
    outage: databaseOutage(app),
  });
  app.addHook('onClose', async () => {
    await worker.stop();
  });
  app.addHook('onReady', async () => {
    worker.start();
  });
  // Every instance sweeps (no instance is special); the sweep's DELETE is safe to run on several at once.
  let stopRetention: () => Promise<void> = async () => {};
  app.addHook('onReady', async () => {
    stopRetention = startRetentionSweep({ db, log: app.log, days: config.retentionDays, deleted: metrics.jobsDeleted });
  });
  app.addHook('onClose', async () => {
    await stopRetention();
  });
  return worker;
}
