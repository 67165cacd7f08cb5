import type { Database, Queryable } from '../../kit/db.ts';

/**
 * The partitions of `events` (migration 007): daily ones named `events_YYYYMMDD` for [day, day + 1) in UTC, the
 * table from before partitioning (`events_before_YYYYMMDD`, everything before that day), and `events_default` for
 * events of a day without a partition. Each holds its own PRIMARY KEY (id) and UNIQUE (project_id, event_id).
 */
export interface Partition {
  name: string;
  /** Range start; null for MINVALUE (the table from before partitioning) and for the default partition. */
  from: Date | null;
  /** Range end (excluded); null for the default partition. */
  to: Date | null;
  isDefault: boolean;
  /** PostgreSQL's estimate (pg_class.reltuples, as of the last ANALYZE); 0 before any. */
  estimatedRows: number;
  bytes: number;
}

export const DEFAULT_PARTITION = 'events_default';

/** A partition as the admin API and the CLI's --json show it. */
export function partitionView(p: Partition) {
  return {
    name: p.name,
    from: p.from?.toISOString() ?? null,
    to: p.to?.toISOString() ?? null,
    default: p.isDefault,
    estimated_rows: p.estimatedRows,
    bytes: p.bytes,
  };
}

/** Taken for each change of the partitions, so that instances maintaining them at once take turns. */
const LOCK_KEY = 'ingest.events.partitions';

const DAY_MS = 86_400_000;

/** The UTC day holding `at`, as its first instant. */
export function dayOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

export function addDays(day: Date, days: number): Date {
  return new Date(day.getTime() + days * DAY_MS);
}

export function dayPartitionName(day: Date): string {
  return `events_${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** Every partition of `events`, oldest range first, the default one last. */
export async function listPartitions(db: Database): Promise<Partition[]> {
  // The bounds come back as text in the session's time zone and date style: fixed to UTC and ISO for parsing.
  const rows = await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL TimeZone = 'UTC'`);
    await tx.query(`SET LOCAL DateStyle = 'ISO'`);
    return (
      await tx.query<{ name: string; bound: string; rows: number; bytes: number }>(
        `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, greatest(c.reltuples, 0)::float8 AS rows,
           pg_total_relation_size(c.oid)::float8 AS bytes
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'events'::regclass`,
      )
    ).rows;
  });
  const partitions = rows.map((r) => ({
    name: r.name,
    ...parseBound(r.bound),
    estimatedRows: r.rows,
    bytes: r.bytes,
  }));
  const rank = (p: Partition) => (p.isDefault ? Infinity : (p.from?.getTime() ?? -Infinity));
  return partitions.sort((a, b) => rank(a) - rank(b));
}

/** `FOR VALUES FROM ('2026-11-27 00:00:00+00') TO (…)`, MINVALUE, or DEFAULT, as written by pg_get_expr in UTC. */
function parseBound(bound: string): { from: Date | null; to: Date | null; isDefault: boolean } {
  if (bound.trim() === 'DEFAULT') return { from: null, to: null, isDefault: true };
  const m = /FROM \((MINVALUE|'([^']+)')\) TO \((MAXVALUE|'([^']+)')\)/.exec(bound);
  if (!m) throw new Error(`unexpected partition bound of events: ${bound}`);
  const instant = (text: string | undefined) => (text === undefined ? null : new Date(isoOf(text)));
  return { from: instant(m[2]), to: instant(m[4]), isDefault: false };
}

/** PostgreSQL's ISO output in UTC (`2026-11-27 00:00:00+00`, maybe with a fraction) as JavaScript's ISO form. */
function isoOf(text: string): string {
  return `${text.replace(' ', 'T').replace(/\+00$/, '')}Z`;
}

/** A timestamptz literal for DDL, which takes no parameters; built from a Date, so nothing of it comes from input. */
function literal(at: Date): string {
  return `'${at.toISOString()}'`;
}

/**
 * Runs `change` in a transaction that waits at most `lockTimeoutMs` for each lock, under the partitions' advisory lock.
 * Answers false, having done nothing, when another instance holds that lock or a lock could not be had in time:
 * DDL on `events` queued behind a long query (a dashboard's scan) would hold up every insert queued behind it.
 */
export async function changePartitions(
  db: Database,
  lockTimeoutMs: number,
  change: (tx: Queryable) => Promise<void>,
): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.floor(lockTimeoutMs))}ms`]);
      const locked = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [
        LOCK_KEY,
      ]);
      if (!locked.rows[0]!.ok) return false;
      await change(tx);
      return true;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return false;
    throw err;
  }
}

/**
 * Makes the partition of one day. It is built beside the table, with its indexes, then the default partition's events
 * of that day (if any) are moved into it, then it is attached: attaching only takes a SHARE UPDATE EXCLUSIVE lock on
 * `events`, which inserts do not wait for, while CREATE TABLE … PARTITION OF would lock out every insert. The default
 * partition is locked first, so no event of that day can reach it between the move and the attach (which checks it).
 */
export async function createDayPartition(tx: Queryable, day: Date): Promise<void> {
  const name = dayPartitionName(day);
  const from = literal(day);
  const to = literal(addDays(day, 1));
  await tx.query(`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS)`);
  await tx.query(
    `ALTER TABLE ${name} ADD PRIMARY KEY (id), ADD UNIQUE (project_id, event_id),
       ADD CONSTRAINT ${name}_range CHECK (event_ts >= ${from} AND event_ts < ${to})`,
  );
  await tx.query(`LOCK TABLE ${DEFAULT_PARTITION} IN ACCESS EXCLUSIVE MODE`);
  await tx.query(
    `WITH moved AS (DELETE FROM ${DEFAULT_PARTITION} WHERE event_ts >= ${from} AND event_ts < ${to} RETURNING *)
     INSERT INTO ${name} SELECT * FROM moved`,
  );
  await tx.query(`ALTER TABLE events ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`);
}

/** Drops one partition and its events. Outbox entries of its events are completed unsent by the next delivery. */
export async function dropPartition(tx: Queryable, name: string): Promise<void> {
  // Only names read from the catalog as partitions of events come here; quoted all the same.
  await tx.query(`DROP TABLE "${name.replaceAll('"', '""')}"`);
}

/**
 * The projects with events in a partition, read from its unique index on (project_id, event_id) by skipping from one
 * project to the next: one index probe per project, whatever the partition's size.
 */
export async function projectsIn(db: Queryable, name: string): Promise<string[]> {
  const table = `"${name.replaceAll('"', '""')}"`;
  const { rows } = await db.query<{ project_id: string }>(
    `WITH RECURSIVE p AS (
       (SELECT project_id FROM ${table} ORDER BY project_id LIMIT 1)
       UNION ALL
       SELECT (SELECT project_id FROM ${table} WHERE project_id > p.project_id ORDER BY project_id LIMIT 1)
       FROM p WHERE p.project_id IS NOT NULL
     )
     SELECT project_id FROM p WHERE project_id IS NOT NULL`,
  );
  return rows.map((r) => r.project_id);
}
