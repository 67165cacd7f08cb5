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

/**
 * Sets the site's schedule; the next run is the first slot after now, whatever the schedule was before. A claim on the
 * old schedule is dropped: its holder finds it gone and queues nothing for a slot the new schedule replaced.
 */
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
       enabled = excluded.enabled, next_run_at = excluded.next_run_at, last_error = NULL, updated_at = now(),
       claimed_until = NULL, claim_token = NULL`,
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
 * Claims one due schedule for `leaseSeconds` under `token`, in a statement of its own (committed at once): another
 * instance skips it while the claim is being made (SKIP LOCKED) and, until the lease passes, no longer finds it due.
 * A claim whose holder died before settling it comes due again when its lease passes. Null when nothing is due.
 */
export async function claimDueSchedule(
  db: Queryable,
  token: string,
  leaseSeconds: number,
): Promise<DueSchedule | null> {
  const { rows } = await db.query<DueSchedule>(
    `UPDATE schedules sc SET claimed_until = now() + make_interval(secs => $2), claim_token = $1
     FROM sites s
     WHERE s.id = sc.site_id AND sc.site_id = (
       SELECT site_id FROM schedules
       WHERE enabled AND next_run_at <= now() AND (claimed_until IS NULL OR claimed_until <= now())
       ORDER BY next_run_at FOR UPDATE SKIP LOCKED LIMIT 1
     )
     RETURNING sc.site_id AS "siteId", s.owner, s.url, s.config, sc.cron, sc.time_zone AS "timeZone", sc.next_run_at AS "dueAt"`,
    [token, leaseSeconds],
  );
  return rows[0] ?? null;
}

/**
 * Locks the schedule for the caller's transaction if `token` still claims it: false when the claim was lost (its lease
 * passed and another instance claimed it, or the schedule was changed or deleted), and then nothing is to be written.
 */
export async function holdClaim(tx: Queryable, siteId: string, token: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM schedules WHERE site_id = $1 AND claim_token = $2 FOR UPDATE', [
    siteId,
    token,
  ]);
  return rows.length === 1;
}

/** Advances a held schedule past now, recording what its slot did (a run queued, or why none was), and ends the claim. */
export async function advanceSchedule(
  tx: Queryable,
  siteId: string,
  next: Date,
  outcome: { jobId: string } | { error: string },
): Promise<void> {
  await tx.query(
    `UPDATE schedules SET next_run_at = $2, last_run_at = now(), last_job_id = coalesce($3, last_job_id), last_error = $4,
       claimed_until = NULL, claim_token = NULL
     WHERE site_id = $1`,
    [siteId, next, 'jobId' in outcome ? outcome.jobId : null, 'error' in outcome ? outcome.error : null],
  );
}

/** Stops a held schedule that cannot run again, saying why, and ends the claim. */
export async function pauseSchedule(tx: Queryable, siteId: string, reason: string): Promise<void> {
  await tx.query(
    `UPDATE schedules SET enabled = false, last_error = $2, last_run_at = now(), claimed_until = NULL, claim_token = NULL
     WHERE site_id = $1`,
    [siteId, reason],
  );
}
