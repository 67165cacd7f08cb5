import type { Queryable } from '../../../kit/db.ts';
import { isoUtc } from '../../../kit/sql.ts';

/** A destination's delivery figures, as the console shows them beside it. */
export interface DeliveryFigures {
  destination_id: string;
  /** Events the destination took since it was made (the worker counts them as it completes them). */
  delivered: number;
  /** Events queued that were never tried yet, or were tried and given back untried. */
  waiting: number;
  /** Events queued that failed at least once and will be tried again. */
  retrying: number;
  /** Events in its dead letters. */
  dead: number;
  /** When the oldest queued event was queued; null when nothing is queued. */
  oldest_queued_at: string | null;
  /** The last error of a retrying event, the newest first; null when none is retrying. */
  last_error: string | null;
}

/** The figures of one destination; undefined when there is no such destination. */
export async function deliveryFigures(db: Queryable, destinationId: string): Promise<DeliveryFigures | undefined> {
  // bigint comes back as text from pg: read as a number (a count far below 2^53).
  const { rows } = await db.query<Omit<DeliveryFigures, 'delivered'> & { delivered: string }>(
    `SELECT d.id AS destination_id, d.delivered::text AS delivered,
       (SELECT count(*) FROM outbox o WHERE o.destination_id = d.id AND o.first_failed_at IS NULL)::int AS waiting,
       (SELECT count(*) FROM outbox o WHERE o.destination_id = d.id AND o.first_failed_at IS NOT NULL)::int AS retrying,
       (SELECT count(*) FROM dead_letters l WHERE l.destination_id = d.id)::int AS dead,
       (SELECT ${isoUtc('min(o.created_at)')} FROM outbox o WHERE o.destination_id = d.id) AS oldest_queued_at,
       (SELECT o.last_error FROM outbox o WHERE o.destination_id = d.id AND o.last_error IS NOT NULL ORDER BY o.id DESC LIMIT 1) AS last_error
     FROM destinations d WHERE d.id = $1`,
    [destinationId],
  );
  const row = rows[0];
  return row && { ...row, delivered: Number(row.delivered) };
}
