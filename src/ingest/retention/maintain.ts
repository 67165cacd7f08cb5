import type { Database } from '../../kit/db.ts';
import {
  addDays,
  changePartitions,
  createDayPartition,
  dayOf,
  dayPartitionName,
  DEFAULT_PARTITION,
  dropPartition,
  listPartitions,
  projectsIn,
  type Partition,
} from './partitions.ts';
import { projectSettings } from './settings.ts';
import { foldCounts, forgetCounts } from '../read/rollup.ts';

export interface MaintenanceOptions {
  /** The time the run takes as now (the service passes the clock's; tests a day of their choosing). */
  now: Date;
  /** Retention of a project without its own, in days; null keeps such events for ever. */
  defaultDays: number | null;
  daysAhead: number;
  daysBehind: number;
  /** Longest wait for a lock on `events` before a change is left for the next run. */
  lockTimeoutMs: number;
}

export interface MaintenanceReport {
  created: string[];
  dropped: string[];
  /** Expired events deleted from the default partition (the only events ever deleted row by row). */
  deletedFromDefault: number;
  /** Changes left for the next run: another instance was changing the partitions, or a lock was not had in time. */
  postponed: string[];
}

/** A report as the admin API and the CLI's --json show it. */
export function reportView(report: MaintenanceReport) {
  return {
    created: report.created,
    dropped: report.dropped,
    deleted_from_default: report.deletedFromDefault,
    postponed: report.postponed,
  };
}

/**
 * One round of partition maintenance: makes the daily partitions from `daysBehind` before today to `daysAhead` after,
 * drops every partition whose events have all expired, and deletes the expired events of the default partition.
 *
 * A day's events expire once the day is a project's retention in whole days past (so an event is kept N to N + 1
 * days). A partition holds many projects' events and goes only when it has expired for every project with events in
 * it: a project whose retention is shorter than another's that has events the same days keeps its events until that
 * longer retention is over too (docs/ingest.md, Retention).
 */
export async function maintainPartitions(db: Database, options: MaintenanceOptions): Promise<MaintenanceReport> {
  const report: MaintenanceReport = { created: [], dropped: [], deletedFromDefault: 0, postponed: [] };
  const settings = await projectSettings(db);
  const retentionOf = (projectId: string) => settings.get(projectId) ?? options.defaultDays;
  const finite = [options.defaultDays, ...settings.values()].filter((d): d is number => d !== null);
  // Nothing older than this can still be kept for any project (null: something is kept for ever).
  const shortest = finite.length ? Math.min(...finite) : null;
  const expiredBy = (days: number | null, end: Date) =>
    days !== null && end.getTime() <= addDays(options.now, -days).getTime();

  let partitions = await listPartitions(db);
  const today = dayOf(options.now);
  for (let offset = -options.daysBehind; offset <= options.daysAhead; offset++) {
    const day = addDays(today, offset);
    // A day that would be dropped at once, empty, is not made.
    if (expiredBy(shortest, addDays(day, 1))) continue;
    if (covered(partitions, day)) continue;
    const name = dayPartitionName(day);
    const done = await changePartitions(db, options.lockTimeoutMs, async (tx) => {
      // Another instance may have made it since the list was read.
      const exists = await tx.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]);
      if (exists.rows[0]!.t === null) await createDayPartition(tx, day);
    });
    (done ? report.created : report.postponed).push(name);
  }
  if (report.created.length) partitions = await listPartitions(db);

  for (const partition of partitions) {
    if (partition.isDefault || partition.to === null || !expiredBy(shortest, partition.to)) continue;
    const projects = await projectsIn(db, partition.name);
    if (!projects.every((id) => expiredBy(retentionOf(id), partition.to!))) continue;
    const done = await changePartitions(db, options.lockTimeoutMs, async (tx) => {
      const exists = await tx.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [partition.name]);
      if (exists.rows[0]!.t === null) return;
      await dropPartition(tx, partition.name);
      await forgetCounts(tx, partition.from, partition.to!);
    });
    (done ? report.dropped : report.postponed).push(partition.name);
  }

  if (shortest !== null) report.deletedFromDefault = await deleteExpiredStrays(db, options);
  await foldCounts(db);
  return report;
}

/** Whether a partition other than the default one holds `day`. */
function covered(partitions: readonly Partition[], day: Date): boolean {
  const t = day.getTime();
  return partitions.some(
    (p) => !p.isDefault && (p.from === null || p.from.getTime() <= t) && p.to !== null && t < p.to.getTime(),
  );
}

/**
 * The default partition's expired events, by the same rule as a partition's: an event goes once its day is the
 * project's retention past, i.e. it is older than the start of the day `retention` days before now.
 */
async function deleteExpiredStrays(db: Database, options: MaintenanceOptions): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM ${DEFAULT_PARTITION} e
     WHERE e.event_ts < date_trunc('day', ($1::timestamptz AT TIME ZONE 'UTC') - make_interval(days =>
       coalesce((SELECT r.days FROM project_retention r WHERE r.project_id = e.project_id), $2::int))) AT TIME ZONE 'UTC'`,
    [options.now.toISOString(), options.defaultDays],
  );
  return rowCount;
}
