import type { Database, Queryable } from '../../kit/db.ts';

/** An unfinished erasure taken by one worker until `leaseMs` from its last batch. */
export interface ClaimedErasure {
  id: string;
  projectId: string;
  userId: string;
  requestedAt: Date;
  token: string;
}

/**
 * Takes the oldest unfinished erasure no worker holds (its lease run out, or never taken), for `leaseMs`. SKIP LOCKED
 * lets instances claim side by side without waiting on each other; the lease keeps it from every other worker while
 * its holder renews it at each batch, and hands it to another once its holder died.
 */
export async function claimErasure(db: Queryable, leaseMs: number, token: string): Promise<ClaimedErasure | undefined> {
  const { rows } = await db.query<{ id: string; project_id: string; user_id: string; requested_at: Date }>(
    `UPDATE erasures e SET status = 'running', started_at = coalesce(e.started_at, now()),
       leased_until = now() + $1 * interval '1 millisecond', lease_token = $2
     WHERE e.id = (
       SELECT id FROM erasures WHERE status <> 'completed' AND (leased_until IS NULL OR leased_until <= now())
       ORDER BY requested_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING e.id, e.project_id, e.user_id, e.requested_at`,
    [leaseMs, token],
  );
  const r = rows[0];
  return r && { id: r.id, projectId: r.project_id, userId: r.user_id, requestedAt: r.requested_at, token };
}

/**
 * One batch of the user's events, newest first, found through the (project, user.id, time) index of migration 011.
 * The delete reads them again through the same index from the batch's oldest time on, so it reads the batch (and
 * events of that very instant), never the user's older events, and only the partitions of those days (pruned when it
 * starts: EXPLAIN ANALYZE shows the other partitions "never executed"). With them, in the same statement:
 * their hourly counts are taken back (rows of minus their number, appended beside the trigger's as it appends its
 * own, folded by the maintenance), their outbox entries and dead letters go. `selected` is what the index gave,
 * `deleted` what was deleted (fewer only when a concurrent change took some first: the next batch looks again).
 */
const ERASE_BATCH = `
  WITH doomed AS (
    SELECT id, event_ts FROM events
    WHERE project_id = $1 AND (body ->> 'user.id') = $2
    ORDER BY event_ts DESC, id DESC
    LIMIT $3
  ), gone AS (
    DELETE FROM events e USING doomed d
    WHERE e.project_id = $1 AND (e.body ->> 'user.id') = $2 AND e.event_ts >= (SELECT min(event_ts) FROM doomed)
      AND e.event_ts = d.event_ts AND e.id = d.id
    RETURNING e.id, e.event_ts, e.event_type
  ), uncounted AS (
    INSERT INTO event_counts (project_id, hour, event_type, n)
    SELECT $1, date_trunc('hour', event_ts, 'UTC'), event_type, -count(*) FROM gone GROUP BY 2, 3
  ), unqueued AS (
    DELETE FROM outbox WHERE event_row_id IN (SELECT id FROM gone) RETURNING 1
  ), unlettered AS (
    DELETE FROM dead_letters WHERE event_row_id IN (SELECT id FROM gone) RETURNING 1
  )
  SELECT (SELECT count(*) FROM doomed)::int AS selected, (SELECT count(*) FROM gone)::int AS deleted`;

export interface BatchOutcome {
  selected: number;
  deleted: number;
}

/**
 * Deletes one batch in one transaction with the erasure's progress, while the lease is still this worker's (renewed
 * here); undefined, having deleted nothing, when it is not (another worker has it: this one stops).
 */
export async function eraseBatch(
  db: Database,
  erasure: ClaimedErasure,
  batchEvents: number,
  leaseMs: number,
): Promise<BatchOutcome | undefined> {
  return db.transaction(async (tx) => {
    const held = await tx.query(
      `UPDATE erasures SET leased_until = now() + $3 * interval '1 millisecond' WHERE id = $1 AND lease_token = $2`,
      [erasure.id, erasure.token, leaseMs],
    );
    if (held.rowCount === 0) return undefined;
    const { rows } = await tx.query<BatchOutcome>(ERASE_BATCH, [erasure.projectId, erasure.userId, batchEvents]);
    const outcome = rows[0]!;
    if (outcome.deleted > 0)
      await tx.query('UPDATE erasures SET deleted = deleted + $2 WHERE id = $1', [erasure.id, outcome.deleted]);
    return outcome;
  });
}

/**
 * Marks the erasure done (while the lease is this worker's), its user's id dropped unless its suppression holds
 * (migration 014); answers its count of deleted events, undefined if not.
 */
export async function completeErasure(db: Queryable, erasure: ClaimedErasure): Promise<number | undefined> {
  const { rows } = await db.query<{ deleted: number }>(
    `UPDATE erasures SET status = 'completed', finished_at = now(), leased_until = NULL, lease_token = NULL,
       -- Done: the record keeps its digest only, unless a suppression still matches arriving events by the id.
       user_id = CASE WHEN suppress AND suppression_lifted_at IS NULL THEN user_id ELSE NULL END
     WHERE id = $1 AND lease_token = $2 RETURNING deleted::float8 AS deleted`,
    [erasure.id, erasure.token],
  );
  return rows[0]?.deleted;
}

/** Gives the erasure back, to be taken again (by any worker) from `until` on. */
export async function releaseErasure(db: Queryable, erasure: ClaimedErasure, until: Date): Promise<void> {
  await db.query('UPDATE erasures SET leased_until = $3, lease_token = NULL WHERE id = $1 AND lease_token = $2', [
    erasure.id,
    erasure.token,
    until,
  ]);
}
