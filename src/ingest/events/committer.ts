import type { FastifyBaseLogger } from 'fastify';
import { createBatcher } from '../../kit/batcher.ts';
import { isDatabaseUnavailable, type Database } from '../../kit/db.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import type { IngestMetrics } from '../metrics.ts';
import {
  binaryArray,
  copyRows,
  decodeElements,
  decodeTimestamps,
  JSON_OID,
  TEXT_OID,
  TIMESTAMPTZ_OID,
} from './pg-array.ts';
import type { EventSink } from './sink.ts';
import type { PreparedEvents } from './validate.ts';

/** The database could not take the events (down, unreachable, overloaded, shutting down): the client should retry. */
export class CommitUnavailableError extends Error {}

export interface CommitterOptions {
  db: Database;
  metrics: IngestMetrics;
  log: FastifyBaseLogger;
  /** Group commits in flight at once. */
  concurrency: number;
  /** Most events one group commit takes; a request is never split. */
  maxEvents: number;
  /** Events waiting beyond which new work is refused. */
  maxPending: number;
  /** Where an outage is logged, once when it begins and once when it ends. */
  outage: OutageLog;
}

/** commit() resolves once the events are committed (new ones inserted, already stored ones left as they are). */
export type Committer = EventSink;

/**
 * Group commit, on the kit's micro-batcher. Requests queue their accepted events; while fewer than
 * `concurrency` transactions are in flight the queue is taken whole (up to `maxEvents`) into one COPY,
 * its own transaction, so under load many requests share a round trip and an fsync, and an idle service
 * commits a lone request at once with no timer. Rows go straight into `events` (COPY, or an INSERT after a
 * conflict) so its statement triggers run in the same transaction: `events_enqueue_for_forwarding` (migration 002)
 * writes the forwarding outbox that forwarding/delivery/outbox.ts reads, `events_check_project`
 * (migration 003) checks the projects.
 */
export function createCommitter(options: CommitterOptions): Committer {
  const { db, metrics, log, outage } = options;
  // Groups still to be inserted with ON CONFLICT straight away since the last one that met a stored event.
  let conflictGroupsLeft = 0;
  const insertWithRetry = async (parts: PreparedEvents[]) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await insert(parts);
      } catch (err) {
        // Two instances inserting overlapping retries in different orders can deadlock on the unique index.
        const code = (err as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && attempt < 4) continue;
        throw err;
      }
    }
  };

  const insert = async (parts: PreparedEvents[]) => {
    const started = performance.now();
    let count = 0;
    for (const p of parts) count += p.count;
    let inserted: number | undefined;
    if (db.kind === 'postgres') {
      if (conflictGroupsLeft > 0) conflictGroupsLeft--;
      else inserted = await copyPlain(parts, count);
      inserted ??= await db.transaction(
        async (tx) => (await tx.query(INSERT_EVENTS, insertParameters(parts, count))).rowCount,
      );
    } else {
      // PGlite takes text parameters: the bodies go as one JSON array, split inside the database.
      inserted = await db.transaction(
        async (tx) =>
          (
            await tx.query(INSERT_EVENTS_TEXT, [
              `[${parts.flatMap((p) => decodeElements(p.bodies)).join(',')}]`,
              `{${parts
                .flatMap((p) => decodeTimestamps(p.timestamps))
                .map((ms) => new Date(ms).toISOString())
                .join(',')}}`,
            ])
          ).rowCount,
      );
    }
    metrics.commitSeconds.observe((performance.now() - started) / 1000);
    metrics.commitEvents.observe(count);
    if (inserted < count) metrics.eventsDuplicate.inc(count - inserted);
  };

  /**
   * The group without ON CONFLICT, by `COPY … FROM STDIN (FORMAT binary)` (see COPY_EVENTS). Without ON CONFLICT:
   * its speculative insertion (a probe of the unique index before each row, then a token and a confirmation record
   * in WAL) was a quarter of PostgreSQL's CPU per row. The unique index still refuses an event already stored (or
   * being stored by another transaction, whose commit it waits for): the whole statement then fails with 23505 and
   * nothing of it stays. Undefined in that case, and the caller inserts the group again with ON CONFLICT DO NOTHING,
   * as it does the next CONFLICT_WINDOW groups, so a client that keeps re-sending stored events costs one failed
   * attempt per window.
   */
  const copyPlain = async (parts: PreparedEvents[], count: number): Promise<number | undefined> => {
    const rows = copyParameters(parts, count);
    try {
      return await db.copyFrom!(COPY_EVENTS, rows);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      conflictGroupsLeft = CONFLICT_WINDOW;
      metrics.commitConflictRetries.inc();
      return undefined;
    }
  };

  const batcher = createBatcher<PreparedEvents, void>({
    maxInFlight: options.concurrency,
    maxBatch: Infinity,
    gather: 'none',
    weight: (events) => events.count,
    maxWeight: options.maxEvents,
    maxPendingWeight: options.maxPending,
    overloaded: () => {
      metrics.commitFailures.inc({ kind: 'overloaded' });
      return new CommitUnavailableError('too many events are waiting for the database');
    },
    closed: () => new CommitUnavailableError('the service is shutting down'),
    // One request's rows must not sink the others': a group that fails is committed request by request,
    // unless the database itself is away.
    retryAlone: (err) => !(err instanceof CommitUnavailableError),
    run: async (parts) => {
      try {
        await insertWithRetry(parts);
        outage.succeeded();
      } catch (err) {
        if (isUnavailable(err)) {
          metrics.commitFailures.inc({ kind: 'unavailable' });
          outage.failed(err);
          throw new CommitUnavailableError('the database is unavailable');
        }
        metrics.commitFailures.inc({ kind: 'error' });
        if (parts.length > 1)
          log.warn({ err, requests: parts.length }, 'group commit failed; committing its requests one by one');
        else log.error({ err }, 'commit failed');
        throw err;
      }
      return parts.map(() => undefined);
    },
  });

  return {
    commit: (events) => batcher.submit(events),
    close: () => batcher.close(),
  };
}

/**
 * Each column travels as its own binary array (pg-array.ts) and `body` is a `json` column (migration 006), so
 * PostgreSQL neither parses an array literal nor builds a jsonb tree per event (json input only checks the text),
 * and the timestamps go as binary instants rather than text to parse.
 * Measured per row of PostgreSQL CPU (5,000-row groups, bench/README.md): 22 µs with the whole group as one jsonb
 * array split by jsonb_array_elements into a jsonb column, 17 µs like this. ROWS FROM zips the arrays in order.
 */
export const INSERT_EVENTS_PLAIN = `
INSERT INTO events (project_id, event_id, event_type, event_ts, session_id, body)
SELECT * FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::timestamptz[]),
  unnest($5::text[]), unnest($6::json[]))`;

/**
 * The first attempt at a group: its rows in COPY's binary format (pg-array.ts, copyRows). COPY inserts them a page
 * at a time (one WAL record per page of rows rather than one per row, no executor per row) and fires the same
 * statement triggers with the same transition table as an INSERT; the `id` default (nextval) does not stop that.
 * bench/ingest-insert.ts, variant `copy` against `plain` (INSERT_EVENTS_PLAIN): see bench/README.md.
 */
export const COPY_EVENTS =
  'COPY events (project_id, event_id, event_type, event_ts, session_id, body) FROM STDIN (FORMAT binary)';

/**
 * The same, skipping events whose (project_id, event_id) is stored: what a group holding a re-sent event needs. No
 * conflict target: `events` is partitioned by day (migration 007) and each partition holds its own unique index on
 * (project_id, event_id), which ON CONFLICT DO NOTHING without a target takes as the arbiter of the partition a row goes to.
 */
export const INSERT_EVENTS = `${INSERT_EVENTS_PLAIN}
ON CONFLICT DO NOTHING`;

/** Groups inserted with ON CONFLICT straight away after one met a stored event (see insertPlain). */
export const CONFLICT_WINDOW = 16;

/** INSERT_EVENTS' parameters for the requests `parts` holding `count` events in all (bench/ingest-insert.ts uses it too). */
export function insertParameters(parts: readonly PreparedEvents[], count: number): Buffer[] {
  const column = (oid: number, pick: (p: PreparedEvents) => Buffer) => binaryArray(oid, count, parts.map(pick));
  return [
    column(TEXT_OID, (p) => p.projects),
    column(TEXT_OID, (p) => p.eventIds),
    column(TEXT_OID, (p) => p.types),
    column(TIMESTAMPTZ_OID, (p) => p.timestamps),
    column(TEXT_OID, (p) => p.sessions),
    column(JSON_OID, (p) => p.bodies),
  ];
}

/** COPY_EVENTS' input for the requests `parts` holding `count` events in all. */
export function copyParameters(parts: readonly PreparedEvents[], count: number): Buffer {
  const column = (pick: (p: PreparedEvents) => Buffer) => parts.map(pick);
  return copyRows(count, [
    column((p) => p.projects),
    column((p) => p.eventIds),
    column((p) => p.types),
    column((p) => p.timestamps),
    column((p) => p.sessions),
    column((p) => p.bodies),
  ]);
}

/** The embedded database's form: one JSON array of the bodies, every column but `event_ts` read from the body. */
const INSERT_EVENTS_TEXT = `
INSERT INTO events (project_id, event_id, event_type, event_ts, session_id, body)
SELECT e->>'project_id', e->>'event_id', e->>'event.type', t, e->>'session.id', e
FROM ROWS FROM (json_array_elements($1::json), unnest($2::timestamptz[])) AS r(e, t)
ON CONFLICT DO NOTHING`;

/** Connection-level failures (and a server refusing work) as opposed to an error in the statement itself. */
export function isUnavailable(err: unknown): boolean {
  return err instanceof CommitUnavailableError || isDatabaseUnavailable(err);
}
