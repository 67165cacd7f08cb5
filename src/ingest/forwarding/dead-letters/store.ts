import type { Database, Queryable } from '../../../kit/db.ts';
import { isoUtc } from '../../../kit/sql.ts';

export interface DeadLetterView {
  id: number;
  destination_id: string;
  event_id: string;
  reason: string;
  attempts: number;
  first_failed_at: string;
  queued_at: string;
  dead_at: string;
}

/** Oldest first, paged by id: `after` is the last id of the previous page. */
export async function listDeadLetters(
  db: Queryable,
  destinationId: string,
  options: { limit: number; after?: number | undefined },
): Promise<DeadLetterView[]> {
  const { rows } = await db.query<DeadLetterView>(
    `SELECT id, destination_id, event_id, reason, attempts, ${isoUtc('first_failed_at')} AS first_failed_at, ${isoUtc('queued_at')} AS queued_at, ${isoUtc('dead_at')} AS dead_at
     FROM dead_letters WHERE destination_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [destinationId, options.after ?? 0, options.limit],
  );
  return rows;
}

/**
 * Puts dead letters back in the outbox as new entries (attempts from zero, due now) and removes them from the
 * dead letters, in one transaction. `ids` limits it to those dead letters; without it every one of the destination.
 * If they fail again they come back here after the same attempts and time as any event.
 */
export async function replayDeadLetters(db: Database, destinationId: string, ids?: number[]): Promise<number> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `WITH replayed AS (
         DELETE FROM dead_letters WHERE destination_id = $1 AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))
         RETURNING destination_id, event_row_id, id
       )
       INSERT INTO outbox (destination_id, event_row_id) SELECT destination_id, event_row_id FROM replayed ORDER BY id`,
      [destinationId, ids ?? null],
    );
    return rowCount;
  });
}

/** One dead letter with its event as stored (the JSON text received), null when retention removed the event. */
export interface DeadLetterDetail extends DeadLetterView {
  payload: string | null;
}

export async function getDeadLetter(
  db: Queryable,
  destinationId: string,
  id: number,
): Promise<DeadLetterDetail | undefined> {
  const { rows } = await db.query<DeadLetterDetail>(
    `SELECT l.id, l.destination_id, l.event_id, l.reason, l.attempts, ${isoUtc('l.first_failed_at')} AS first_failed_at,
       ${isoUtc('l.queued_at')} AS queued_at, ${isoUtc('l.dead_at')} AS dead_at,
       (SELECT e.body::text FROM events e WHERE e.id = l.event_row_id) AS payload
     FROM dead_letters l WHERE l.destination_id = $1 AND l.id = $2`,
    [destinationId, id],
  );
  return rows[0];
}
