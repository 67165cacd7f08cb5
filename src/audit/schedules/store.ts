import type { Queryable } from '../../kit/db.ts';
import type { SiteConfig } from '../sites/schemas.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { ScheduleKind, ScheduleRule } from './cron.ts';

export interface ScheduleOutRecord {
  kind: ScheduleKind;
  time: string | null;
  weekday: number | null;
  cron: string;
  timeZone: string;
  enabled: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastJobId: string | null;
  lastError: string | null;
}

/** A schedule's columns under `sc_` names, for the site's read (which left-joins it as `alias`). */
export const SCHEDULE_FIELDS = (alias: string) =>
  `${alias}.kind AS sc_kind, ${alias}.cron AS sc_cron, ${alias}.time_zone AS sc_time_zone, ${alias}.enabled AS sc_enabled,
  ${isoUtc(`${alias}.next_run_at`)} AS sc_next_run_at, ${isoUtc(`${alias}.last_run_at`)} AS sc_last_run_at,
  ${alias}.last_job_id AS sc_last_job_id, ${alias}.last_error AS sc_last_error`;

export interface ScheduleRow {
  sc_kind: ScheduleKind | null;
  sc_cron: string | null;
  sc_time_zone: string | null;
  sc_enabled: boolean | null;
  sc_next_run_at: string | null;
  sc_last_run_at: string | null;
  sc_last_job_id: string | null;
  sc_last_error: string | null;
}

/** The schedule as answered: daily and weekly read back their time (and day) from the expression they run. */
export function scheduleOut(row: ScheduleRow): ScheduleOutRecord | null {
  if (!row.sc_kind || !row.sc_cron || !row.sc_time_zone) return null;
  const [minute, hour, , , day] = row.sc_cron.split(' ');
  const plain = row.sc_kind !== 'cron';
  return {
    kind: row.sc_kind,
    time: plain ? `${hour!.padStart(2, '0')}:${minute!.padStart(2, '0')}` : null,
    weekday: row.sc_kind === 'weekly' ? Number(day) : null,
    cron: row.sc_cron,
    timeZone: row.sc_time_zone,
    enabled: row.sc_enabled ?? false,
    nextRunAt: row.sc_enabled ? row.sc_next_run_at : null,
    lastRunAt: row.sc_last_run_at,
    lastJobId: row.sc_last_job_id,
    lastError: row.sc_last_error,
  };
}

/** Sets the site's schedule; the next run is the first slot after now, whatever the schedule was before. */
export async function putSchedule(
  db: Queryable,
  siteId: string,
  rule: ScheduleRule,
  enabled: boolean,
  nextRunAt: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO schedules (site_id, kind, cron, time_zone, enabled, next_run_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (site_id) DO UPDATE SET kind = excluded.kind, cron = excluded.cron, time_zone = excluded.time_zone,
       enabled = excluded.enabled, next_run_at = excluded.next_run_at, last_error = NULL, updated_at = now()`,
    [siteId, rule.kind, rule.cron, rule.timeZone, enabled, nextRunAt],
  );
}

export async function deleteSchedule(db: Queryable, siteId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM schedules WHERE site_id = $1', [siteId]);
  return rowCount === 1;
}

export interface DueSchedule {
  siteId: string;
  owner: string;
  url: string;
  config: SiteConfig;
  cron: string;
  timeZone: string;
  dueAt: Date;
}

/**
 * Locks one due schedule for the caller's transaction; another instance's claim skips it (SKIP LOCKED) and, once
 * this transaction has advanced next_run_at, no longer finds it due. Null when nothing is due.
 */
export async function lockDueSchedule(tx: Queryable): Promise<DueSchedule | null> {
  const { rows } = await tx.query<DueSchedule>(
    `SELECT sc.site_id AS "siteId", s.owner, s.url, s.config, sc.cron, sc.time_zone AS "timeZone", sc.next_run_at AS "dueAt"
     FROM schedules sc JOIN sites s ON s.id = sc.site_id
     WHERE sc.enabled AND sc.next_run_at <= now()
     ORDER BY sc.next_run_at FOR UPDATE OF sc SKIP LOCKED LIMIT 1`,
  );
  return rows[0] ?? null;
}

/** Advances a claimed schedule past now, recording what its slot did: a run queued, or why none was. */
export async function advanceSchedule(
  tx: Queryable,
  siteId: string,
  next: Date,
  outcome: { jobId: string } | { error: string },
): Promise<void> {
  await tx.query(
    `UPDATE schedules SET next_run_at = $2, last_run_at = now(), last_job_id = coalesce($3, last_job_id), last_error = $4
     WHERE site_id = $1`,
    [siteId, next, 'jobId' in outcome ? outcome.jobId : null, 'error' in outcome ? outcome.error : null],
  );
}

/** Stops a schedule that cannot run again, saying why. */
export async function pauseSchedule(tx: Queryable, siteId: string, reason: string): Promise<void> {
  await tx.query('UPDATE schedules SET enabled = false, last_error = $2, last_run_at = now() WHERE site_id = $1', [
    siteId,
    reason,
  ]);
}
