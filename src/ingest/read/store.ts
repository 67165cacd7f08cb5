import type { Queryable } from '../../kit/db.ts';
import type { InternalUsers } from '../projects/internal-users.ts';
import { keepOthers } from './internal-filter.ts';
import { typeConditions, typesOf, type TypeFilter } from './type-filter.ts';

/** A filter of the event list; each set field narrows it (all of them together). */
export interface EventFilter extends TypeFilter {
  projectId: string;
  from: Date;
  to: Date;
  session?: string | undefined;
  user?: string | undefined;
  /** Events of these users are left out (`internal=exclude`); those without a `user.id` stay. */
  leaveOut?: InternalUsers | undefined;
}

/** An event as lists show it: what is queried, plus `user.id` and `event.name` read from its body. */
export interface EventRow {
  id: string;
  event_id: string;
  type: string;
  timestamp: string;
  session_id: string;
  user_id: string | null;
  name: string | null;
  received_at: string;
}

/** Where a page stops: the event's time as PostgreSQL wrote it (full precision) and its row id. */
export type EventPosition = [string, string];

interface Row {
  id: string;
  event_id: string;
  event_type: string;
  event_ts: Date;
  session_id: string;
  user_id: string | null;
  name: string | null;
  received_at: Date;
  sort_at: string;
}

const view = (r: Row): EventRow => ({
  id: r.id,
  event_id: r.event_id,
  type: r.event_type,
  timestamp: r.event_ts.toISOString(),
  session_id: r.session_id,
  user_id: r.user_id,
  name: r.name,
  received_at: r.received_at.toISOString(),
});

/** What a list shows of an event: `user.id` and `event.name` read from its body. */
const COLUMNS = `id::text AS id, event_id, event_type, event_ts, session_id, body ->> 'user.id' AS user_id,
  body ->> 'event.name' AS name, received_at, event_ts::text AS sort_at`;

/**
 * One page of a project's events, newest first (event time, then row id), read from one of the read indexes
 * (migrations 010 and 011): (project, type, time), (project, session, time) or (project, user, time). With a session
 * or user filter, its index leads and the types only filter its rows; with one type, that type's part of the
 * (project, type, time) index is read in order. Otherwise (no type, several, or all but some) there is no (project,
 * time) index to read (011 dropped it to spare every insert its update): the page is the newest of the newest
 * `limit` events of each type wanted (eachTypeNewestFirst), within the hours the counts say hold them (windowStart).
 */
export async function listEvents(
  db: Queryable,
  filter: EventFilter,
  page: { limit: number; after?: EventPosition | undefined },
): Promise<(EventRow & { position: EventPosition })[]> {
  const params: unknown[] = [filter.projectId, filter.from, filter.to];
  const where = ['project_id = $1', 'event_ts >= $2', 'event_ts < $3'];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.session !== undefined) add((p) => `session_id = ${p}`, filter.session);
  if (filter.user !== undefined) add((p) => `(body ->> 'user.id') = ${p}`, filter.user);
  // A filter on the rows the index gives, whichever leads: the merge reads further down each type when many are left out.
  if (filter.leaveOut && (filter.leaveOut.exact.length || filter.leaveOut.prefixes.length))
    where.push(keepOthers(filter.leaveOut, params));
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    where.push(`(event_ts, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  params.push(page.limit);
  const limit = `$${params.length}`;
  const { only, except } = typesOf(filter);
  const indexed = filter.session !== undefined || filter.user !== undefined || (only?.length === 1 && !except);
  let rows: Row[];
  if (indexed) {
    where.push(...typeConditions('event_type', filter, params));
    ({ rows } = await db.query<Row>(
      `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY events.event_ts DESC, events.id DESC LIMIT ${limit}`,
      params,
    ));
  } else {
    const types = wantedTypes(only, except, params);
    const sql = eachTypeNewestFirst([...where, `event_ts >= $${params.length + 1}`].join(' AND '), limit, types);
    const since = await windowStart(db, filter, page);
    ({ rows } = await db.query<Row>(sql, [...params, since ?? filter.from]));
    // Counted events deleted since (strays of the default partition, erased events): the window may hold too few, so
    // read them all.
    if (since && rows.length < page.limit) ({ rows } = await db.query<Row>(sql, [...params, filter.from]));
  }
  return rows.map((r) => ({ ...view(r), position: [r.sort_at, r.id] }));
}

/**
 * The types a merged list reads, as the rows of a query: those named, or else every type counted for the project in
 * event_counts (every stored event is counted there by its insert's trigger), found by skipping from one to the next
 * on its (project, type) index; less those excluded, which are skipped over without reading their events.
 */
function wantedTypes(only: string[] | undefined, except: string[] | undefined, params: unknown[]): string {
  const named = only ? `SELECT unnest($${params.push(only)}::text[]) AS event_type` : undefined;
  const unwanted = except ? ` AND t.event_type <> ALL($${params.push(except)}::text[])` : '';
  const counted = `WITH RECURSIVE counted AS (
      (SELECT event_type FROM event_counts WHERE project_id = $1 ORDER BY event_type LIMIT 1)
      UNION ALL
      SELECT (SELECT c.event_type FROM event_counts c WHERE c.project_id = $1 AND c.event_type > counted.event_type
              ORDER BY c.event_type LIMIT 1)
      FROM counted WHERE counted.event_type IS NOT NULL)
    SELECT event_type FROM counted`;
  return `SELECT t.event_type FROM (${named ?? counted}) t WHERE t.event_type IS NOT NULL${unwanted}`;
}

/**
 * Where the newest `limit` events before the page's end must start, from the hourly counts: the hour of the
 * `limit`-th newest count row among the whole hours before the end (each row of a positive count counted at least one
 * event, so those hours held at least `limit`; an erasure's rows, negative, are not among them). Bounding the events' time with it, the list probes only the partitions of those
 * hours instead of every day kept. Undefined when the counts hold fewer rows (no bound).
 */
async function windowStart(
  db: Queryable,
  filter: EventFilter,
  page: { limit: number; after?: EventPosition | undefined },
): Promise<Date | undefined> {
  const params: unknown[] = [filter.projectId, filter.from, filter.to, page.after?.[0] ?? filter.to, page.limit - 1];
  const types = typeConditions('event_type', filter, params).map((c) => ` AND ${c}`);
  const { rows } = await db.query<{ hour: Date }>(
    `SELECT hour FROM event_counts
     WHERE project_id = $1 AND n > 0 AND hour >= $2 AND hour < date_trunc('hour', least($3::timestamptz, $4::timestamptz), 'UTC')${types.join('')}
     ORDER BY hour DESC OFFSET $5 LIMIT 1`,
    params,
  );
  return rows[0]?.hour;
}

/**
 * The newest `limit` events matching `where` among the `types` (a query of their names), from the (project, type,
 * time) index: its newest `limit` of each type, merged. A type whose events are gone only costs an empty probe. The
 * body's fields are read for the page's rows only.
 */
function eachTypeNewestFirst(where: string, limit: string, types: string): string {
  return `SELECT ${COLUMNS} FROM (
      SELECT e.* FROM (${types}) t CROSS JOIN LATERAL (
        SELECT id, event_id, event_type, event_ts, session_id, received_at, body FROM events
        WHERE ${where} AND event_type = t.event_type
        ORDER BY event_ts DESC, id DESC LIMIT ${limit}) e
      ORDER BY e.event_ts DESC, e.id DESC LIMIT ${limit}) page
    ORDER BY page.event_ts DESC, page.id DESC`;
}

/**
 * One event with its body as stored (json text, parsed here). `event_id` is unique within a day's partition; were the
 * same id stored on two days (a client reusing ids), the newest is the one shown.
 */
export async function getEvent(
  db: Queryable,
  projectId: string,
  eventId: string,
): Promise<(EventRow & { body: Record<string, unknown> }) | undefined> {
  const { rows } = await db.query<Row & { body: string }>(
    `SELECT ${COLUMNS}, body::text AS body
     FROM events WHERE project_id = $1 AND event_id = $2
     ORDER BY events.event_ts DESC, events.id DESC LIMIT 1`,
    [projectId, eventId],
  );
  const row = rows[0];
  return row ? { ...view(row), body: JSON.parse(row.body) as Record<string, unknown> } : undefined;
}
