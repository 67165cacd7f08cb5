import type { Database, Queryable } from '../../../kit/db.ts';

/*
 * Nothing in TypeScript writes the outbox's rows: the trigger `events_enqueue_for_forwarding` on `events`
 * (function `enqueue_for_forwarding`, migration 002_forwarding.sql) inserts one per stored event and enabled
 * destination of its project, in the transaction of the group commit that stored the event
 * (events/committer.ts). This file reads and settles them. test/ingest/schema.test.ts checks the trigger.
 */

/** An outbox entry reserved by one sender, with its event. */
export interface ClaimedEntry {
  id: number;
  rowId: number;
  attempts: number;
  solo: boolean;
  body: Record<string, unknown> | undefined;
}

/** Destinations with work due now that this instance is not already serving. */
export async function destinationsWithDueWork(db: Queryable, busy: string[], limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT d.id FROM destinations d
     WHERE d.enabled AND (d.not_before IS NULL OR d.not_before <= now()) AND NOT (d.id = ANY($1::text[]))
       AND EXISTS (SELECT 1 FROM outbox o WHERE o.destination_id = d.id AND o.next_attempt_at <= now() AND (o.leased_until IS NULL OR o.leased_until <= now()))
     ORDER BY random() LIMIT $2`,
    [busy, limit],
  );
  return rows.map((r) => r.id);
}

/**
 * Reserves up to `limit` due entries of one destination for `leaseMs`, oldest first. SKIP LOCKED lets instances
 * claim side by side without waiting on each other, and the lease keeps an entry away from every other sender
 * until it is settled or the lease runs out (a crashed sender's entries come back after it). Claiming counts an
 * attempt, so a sender that dies mid-request still moves the entry towards its dead letter.
 */
export async function claim(
  db: Database,
  destinationId: string,
  limit: number,
  leaseMs: number,
  token: string,
): Promise<ClaimedEntry[]> {
  const { rows } = await db.query<{ id: number; event_row_id: number; attempts: number; solo: boolean }>(
    `WITH picked AS (
       SELECT o.id FROM outbox o
       WHERE o.destination_id = $1 AND o.next_attempt_at <= now() AND (o.leased_until IS NULL OR o.leased_until <= now())
         AND EXISTS (SELECT 1 FROM destinations d WHERE d.id = $1 AND d.enabled AND (d.not_before IS NULL OR d.not_before <= now()))
       ORDER BY o.id LIMIT $2
       FOR UPDATE OF o SKIP LOCKED
     )
     UPDATE outbox o SET leased_until = now() + $3 * interval '1 millisecond', lease_token = $4, attempts = o.attempts + 1
     FROM picked WHERE o.id = picked.id
     RETURNING o.id, o.event_row_id, o.attempts, o.solo`,
    [destinationId, limit, leaseMs, token],
  );
  if (rows.length === 0) return [];
  rows.sort((a, b) => a.id - b.id);
  const bodies = await db.query<{ id: number; body: Record<string, unknown> }>(
    'SELECT id, body FROM events WHERE id = ANY($1::bigint[])',
    [rows.map((r) => r.event_row_id)],
  );
  const byRow = new Map(bodies.rows.map((b) => [b.id, b.body]));
  return rows.map((r) => ({
    id: r.id,
    rowId: r.event_row_id,
    attempts: r.attempts,
    solo: r.solo,
    body: byRow.get(r.event_row_id),
  }));
}

/** Delivered (or its event no longer exists): the entry is done. */
export async function complete(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length) await db.query('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [ids]);
}

/** Adds to the destination's count of events it took (the console's delivery figures). */
export async function countDelivered(db: Queryable, destinationId: string, count: number): Promise<void> {
  if (count > 0)
    await db.query('UPDATE destinations SET delivered = delivered + $2 WHERE id = $1', [destinationId, count]);
}

/** Gives entries back untried: they are due again at once and the attempt is not counted. */
export async function release(db: Queryable, ids: number[], token: string, solo = false): Promise<void> {
  if (!ids.length) return;
  await db.query(
    `UPDATE outbox SET leased_until = NULL, lease_token = NULL, attempts = greatest(attempts - 1, 0), next_attempt_at = now(), solo = solo OR $3
     WHERE id = ANY($1::bigint[]) AND lease_token = $2`,
    [ids, token, solo],
  );
}

export interface Failure {
  id: number;
  reason: string;
  delayMs: number;
}

export interface DeadLetterPolicy {
  maxAttempts: number;
  deadLetterAfterMs: number;
}

/**
 * Records failed attempts: each entry is scheduled again after its delay, or — once it has had at least
 * `maxAttempts` attempts and its first failure is at least `deadLetterAfterMs` old — moved to the dead letters
 * with its last reason. Returns how many were retried and how many dead-lettered.
 */
export async function fail(
  db: Database,
  failures: Failure[],
  token: string,
  policy: DeadLetterPolicy,
): Promise<{ retried: number; dead: number }> {
  if (!failures.length) return { retried: 0, dead: 0 };
  return db.transaction(async (tx) => {
    const updated = await tx.query<{ id: number }>(
      `UPDATE outbox o SET first_failed_at = coalesce(o.first_failed_at, now()), last_error = f.reason,
         next_attempt_at = now() + f.delay_ms * interval '1 millisecond', leased_until = NULL, lease_token = NULL
       FROM unnest($1::bigint[], $2::text[], $3::float8[]) AS f(id, reason, delay_ms)
       WHERE o.id = f.id AND o.lease_token = $4
       RETURNING o.id`,
      [failures.map((f) => f.id), failures.map((f) => f.reason), failures.map((f) => f.delayMs), token],
    );
    const ids = updated.rows.map((r) => r.id);
    const dead = await tx.query(
      `WITH dead AS (
         DELETE FROM outbox o WHERE o.id = ANY($1::bigint[]) AND o.attempts >= $2 AND now() - o.first_failed_at >= $3 * interval '1 millisecond'
         RETURNING o.destination_id, o.event_row_id, o.last_error, o.attempts, o.first_failed_at, o.created_at
       )
       INSERT INTO dead_letters (destination_id, event_row_id, event_id, reason, attempts, first_failed_at, queued_at)
       SELECT dead.destination_id, dead.event_row_id, coalesce(e.event_id, ''), dead.last_error, dead.attempts, dead.first_failed_at, dead.created_at
       FROM dead LEFT JOIN events e ON e.id = dead.event_row_id
       RETURNING id`,
      [ids, policy.maxAttempts, policy.deadLetterAfterMs],
    );
    return { retried: ids.length - dead.rowCount, dead: dead.rowCount };
  });
}

/** Counts one more failed round of the destination as a whole; returns the count (it sets the destination's pause). */
export async function countDestinationFailure(db: Queryable, destinationId: string): Promise<number> {
  const { rows } = await db.query<{ failures: number }>(
    'UPDATE destinations SET failures = failures + 1 WHERE id = $1 RETURNING failures',
    [destinationId],
  );
  return rows[0]?.failures ?? 1;
}

/** The destination took events again: its next failure starts from the first delay. */
export async function resetDestinationFailures(db: Queryable, destinationId: string): Promise<void> {
  await db.query('UPDATE destinations SET failures = 0 WHERE id = $1 AND failures > 0', [destinationId]);
}

/** Holds every sender of a destination off until `delayMs` from now (Retry-After, or a destination-wide failure). */
export async function pause(db: Queryable, destinationId: string, delayMs: number): Promise<void> {
  await db.query(
    `UPDATE destinations SET not_before = greatest(coalesce(not_before, now()), now() + $2 * interval '1 millisecond') WHERE id = $1`,
    [destinationId, delayMs],
  );
}

/** Age in seconds of the oldest pending entry of each destination (0 when none), for the lag gauge. */
export async function lagByDestination(
  db: Queryable,
): Promise<{ id: string; kind: string; lag: number; pending: number }[]> {
  const { rows } = await db.query<{ id: string; kind: string; lag: number | null; pending: number }>(
    `SELECT d.id, d.kind,
       extract(epoch FROM now() - (SELECT o.created_at FROM outbox o WHERE o.destination_id = d.id ORDER BY o.id LIMIT 1))::float8 AS lag,
       (SELECT count(*) FROM outbox o WHERE o.destination_id = d.id) AS pending
     FROM destinations d`,
  );
  return rows.map((r) => ({ id: r.id, kind: r.kind, lag: Math.max(r.lag ?? 0, 0), pending: Number(r.pending) }));
}
