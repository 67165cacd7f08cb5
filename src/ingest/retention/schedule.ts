import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '../../kit/db.ts';
import { maintainPartitions, type MaintenanceReport } from './maintain.ts';
import { listPartitions } from './partitions.ts';
import { defaultDays } from './settings.ts';

/** What the maintenance reads from the ingest configuration. */
export interface RetentionConfig {
  retentionDays: number;
  partitionDaysAhead: number;
  partitionDaysBehind: number;
  partitionMaintenanceMinutes: number;
}

/** How long a change of the partitions waits for a lock on `events` before it is left for the next run. */
export const PARTITION_LOCK_TIMEOUT_MS = 5_000;

export interface PartitionMaintenance {
  /** One run now, with the clock's time (the admin API's and the CLI's "maintain"). */
  run(): Promise<MaintenanceReport>;
  close(): Promise<void>;
}

/** One maintenance run with the configuration's settings, the clock's time and the usual lock timeout. */
export function maintainNow(db: Database, config: RetentionConfig): Promise<MaintenanceReport> {
  return maintainPartitions(db, {
    now: new Date(),
    defaultDays: defaultDays(config.retentionDays),
    daysAhead: config.partitionDaysAhead,
    daysBehind: config.partitionDaysBehind,
    lockTimeoutMs: PARTITION_LOCK_TIMEOUT_MS,
  });
}

/**
 * Runs the maintenance at start and every INGEST_PARTITION_MAINTENANCE_MINUTES (never when 0), one run at a time; a
 * failed run is logged and counted, and the next one tries again. Its counters and a gauge of the partitions go to `registry`.
 */
export async function startPartitionMaintenance(deps: {
  db: Database;
  config: RetentionConfig;
  log: FastifyBaseLogger;
  registry: Registry;
}): Promise<PartitionMaintenance> {
  const { db, config, log } = deps;
  const registers = [deps.registry];
  const created = new Counter({
    name: 'ingest_partitions_created_total',
    help: 'Daily partitions of events made by this instance',
    registers,
  });
  const dropped = new Counter({
    name: 'ingest_partitions_dropped_total',
    help: 'Partitions of events dropped by this instance because their events had expired',
    registers,
  });
  const deleted = new Counter({
    name: 'ingest_events_expired_deleted_total',
    help: 'Expired events deleted one by one from the default partition (events of days without a partition)',
    registers,
  });
  const failures = new Counter({
    name: 'ingest_partition_maintenance_failures_total',
    help: 'Maintenance runs that failed (logged); postponed changes are not failures',
    registers,
  });
  new Gauge({
    name: 'ingest_events_partitions',
    help: 'Partitions of events, the default one included',
    registers,
    async collect() {
      this.set((await listPartitions(db).catch(() => [])).length);
    },
  });

  let running: Promise<MaintenanceReport> | undefined;
  const run = () => {
    running ??= maintainNow(db, config)
      .then((report) => {
        created.inc(report.created.length);
        dropped.inc(report.dropped.length);
        deleted.inc(report.deletedFromDefault);
        if (report.created.length || report.dropped.length || report.deletedFromDefault || report.postponed.length)
          log.info({ partitions: report }, 'partition maintenance');
        return report;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const scheduled = async () => {
    try {
      await run();
    } catch (err) {
      failures.inc();
      log.error({ err }, 'partition maintenance failed; the next run tries again');
    }
  };

  let timer: NodeJS.Timeout | undefined;
  if (config.partitionMaintenanceMinutes > 0) {
    await scheduled();
    timer = setInterval(scheduled, config.partitionMaintenanceMinutes * 60_000);
    timer.unref();
  }
  return {
    run,
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
