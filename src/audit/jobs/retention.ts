import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, type Database, type Queryable } from '../../kit/db.ts';
import type { Counter } from 'prom-client';

/** Rows deleted per statement, so one sweep never holds locks on a large part of the table at once. */
const BATCH = 500;
/** How often each instance sweeps; finished jobs are kept for days, so an hour late is of no account. */
export const RETENTION_SWEEP_MS = 60 * 60_000;

const FINISHED = "status IN ('completed', 'failed', 'cancelled')";

/**
 * Deletes jobs that finished more than `days` days ago (their result goes with the row), a batch at a time.
 * Running and pending jobs are never touched: they have no `finished_at` and are not in FINISHED. SKIP LOCKED
 * lets instances sweeping at the same moment split the rows instead of waiting on each other; a row one of them
 * already deleted is simply not found by the other. Returns how many rows this call deleted.
 */
export async function deleteExpiredJobs(db: Queryable, days: number): Promise<number> {
  if (days <= 0) return 0;
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM jobs WHERE id IN (
         SELECT id FROM jobs WHERE ${FINISHED} AND finished_at < now() - make_interval(days => $1)
         ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )`,
      [days, BATCH],
    );
    deleted += rowCount;
    if (rowCount < BATCH) return deleted;
  }
}

/** An operator's explicit delete of one finished job (any owner's); `null` when there is no such job. */
export async function deleteFinishedJob(
  db: Queryable,
  id: string,
): Promise<{ deleted: boolean; status: string } | null> {
  const { rows } = await db.query<{ status: string }>(
    `DELETE FROM jobs WHERE id = $1 AND ${FINISHED} RETURNING status`,
    [id],
  );
  if (rows[0]) return { deleted: true, status: rows[0].status };
  const current = await db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id]);
  return current.rows[0] ? { deleted: false, status: current.rows[0].status } : null;
}

export interface RetentionOptions {
  db: Database;
  log: FastifyBaseLogger;
  days: number;
  deleted: Counter;
}

/**
 * Sweeps at once and then every RETENTION_SWEEP_MS; returns the function that stops it, which waits for a sweep
 * under way so the database is not closed beneath it. `days` 0 keeps everything.
 */
export function startRetentionSweep(options: RetentionOptions): () => Promise<void> {
  if (options.days <= 0) return async () => {};
  const sweep = async () => {
    try {
      const n = await deleteExpiredJobs(options.db, options.days);
      options.deleted.inc(n);
      if (n > 0)
        options.log.info({ deleted: n, retentionDays: options.days }, 'finished audit jobs past retention deleted');
    } catch (err) {
      // The next sweep tries again; an outage is already reported by the app's own checks.
      if (isDatabaseUnavailable(err))
        options.log.warn({ err }, 'audit retention sweep skipped: the database does not answer');
      else options.log.error({ err }, 'audit retention sweep failed');
    }
  };
  let current: Promise<void> = sweep();
  const timer = setInterval(() => {
    current = sweep();
  }, RETENTION_SWEEP_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await current;
  };
}
