/**
 * The read API's queries on 10 million events (src/ingest/read): a fresh database migrated like `platform start
 * ingest`, 30 daily partitions, BENCH_EVENTS events (default 10,000,000) loaded by COPY over the last 30 days into
 * three projects (80 / 15 / 5 %), 70 % of them with a `user.id` among 200,000 users, 1,000,000 sessions. Then each
 * query of the read API is timed (median of BENCH_RUNS, default 5, after one warm-up) twice: without migration 008's
 * indexes and rollup (dropped before the load), and with them (built after it, then VACUUM ANALYZE). Also timed: what
 * the indexes and the counting trigger cost an insert (COPY of 100,000 more events stamped in the last ten minutes, as
 * live events are, without and with them).
 *
 *   node bench/ingest-read.ts        (BENCH_EVENTS=10000000 BENCH_RUNS=5 BENCH_POSTGRES_URL=postgres://...)
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { openDatabase, type Database } from '../src/kit/db.ts';
import { migrate } from '../src/kit/migrations.ts';
import { INGEST_MIGRATIONS } from '../src/ingest/app.ts';
import { addDays, createDayPartition, dayOf } from '../src/ingest/retention/partitions.ts';
import { countEvents } from '../src/ingest/read/counts.ts';
import { listEvents } from '../src/ingest/read/store.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** BENCH_WITHOUT=0: skip the queries without the indexes (a minute or more each on 10 million events). */
const WITHOUT = process.env.BENCH_WITHOUT !== '0';
const DAYS = 30;
const CHUNK = 100_000;
const TYPES = ['page.view', 'ui.click', 'ui.input', 'api.request', 'api.response', 'error', 'custom', 'ui.scroll'];
const USERS = 200_000;
const SESSIONS = 1_000_000;
/** Events as they arrive live: stamped within the last ten minutes. */
const LIVE_SPAN = 600_000;
const ALL_TIME = { from: new Date('0001-01-01T00:00:00Z'), to: new Date('9999-12-31T00:00:00Z') };

/** Migration 010's read indexes as migration 011 left them (without the (project, time) one). */
const READ_INDEXES = `
  CREATE INDEX events_project_type_time ON events (project_id, event_type, event_ts DESC, id DESC);
  CREATE INDEX events_project_session_time ON events (project_id, session_id, event_ts DESC, id DESC);
  CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC);`;
/** Back to migration 010's indexes from 011's: the (project, time) index, the partial `user.id` one (the comparison). */
const TO_010 = `
  CREATE INDEX events_project_time ON events (project_id, event_ts DESC, id DESC);
  DROP INDEX events_project_user_time;
  CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC)
    WHERE (body ->> 'user.id') IS NOT NULL;`;
const TO_011 = `
  DROP INDEX events_project_time, events_project_user_time;
  CREATE INDEX events_project_user_time ON events (project_id, (body ->> 'user.id'), event_ts DESC, id DESC);`;
const DROP_READ = `
  DROP INDEX events_project_type_time, events_project_session_time, events_project_user_time;
  DROP TRIGGER events_count ON events;`;
const COPY = 'COPY events (project_id, event_id, event_type, event_ts, session_id, body) FROM STDIN';

/** A deterministic pseudo-random sequence, so that every run loads the same events. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` events as COPY text rows: the same shape as the SDK's, a few hundred bytes each. */
function rows(from: number, count: number, now: number, random: () => number, tag: string, span: number): Buffer {
  const lines: string[] = [];
  for (let i = from; i < from + count; i++) {
    const r = random();
    const project = r < 0.8 ? 'big' : r < 0.95 ? 'mid' : 'small';
    const type = TYPES[Math.floor(random() * TYPES.length)]!;
    const ts = new Date(now - Math.floor(random() * span)).toISOString();
    const session = `s${Math.floor(random() * SESSIONS)}`;
    const user = random() < 0.7 ? `u${Math.floor(random() * USERS)}` : undefined;
    const id = `${tag}${i}`;
    const body = JSON.stringify({
      event_id: id,
      project_id: project,
      'session.id': session,
      'event.type': type,
      'event.timestamp': ts,
      ...(user ? { 'user.id': user } : {}),
      'page.path': `/products/${i % 500}`,
      'page.title': 'Catalogue — shoes',
      metadata: { plan: 'pro', build: 1234 },
    });
    lines.push(`${project}\t${id}\t${type}\t${ts}\t${session}\t${body}\n`);
  }
  return Buffer.from(lines.join(''));
}

async function load(db: Database, total: number, now: number, tag: string, span: number): Promise<number> {
  const random = rng(42 + tag.length);
  const started = performance.now();
  for (let at = 0; at < total; at += CHUNK) {
    const n = Math.min(CHUNK, total - at);
    await db.copyFrom!(COPY, rows(at, n, now, random, tag, span));
    if (at % 1_000_000 === 0 && at > 0) console.error(`  loaded ${at.toLocaleString('en')}`);
  }
  return performance.now() - started;
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** The list without a filter as migration 010 read it, from its (project, time) index (src/ingest/read/store.ts before 011). */
async function listByTimeIndex(db: Database, projectId: string, after?: [string, string]): Promise<[string, string]> {
  const cursor = after ? ' AND (event_ts, id) < ($4::timestamptz, $5::bigint)' : '';
  const range = [projectId, new Date('0001-01-01T00:00:00Z'), new Date('9999-12-31T00:00:00Z')];
  const { rows } = await db.query<{ id: string; sort_at: string }>(
    `SELECT id::text AS id, event_id, event_type, event_ts, session_id, body ->> 'user.id' AS user_id,
       body ->> 'event.name' AS name, received_at, event_ts::text AS sort_at
     FROM events WHERE project_id = $1 AND event_ts >= $2 AND event_ts < $3${cursor}
     ORDER BY event_ts DESC, id DESC LIMIT 51`,
    after ? [...range, ...after] : range,
  );
  const last = rows[rows.length - 1]!;
  return [last.sort_at, last.id];
}

/** The counts over 30 days straight from the events: what the read API would do without the rollup. */
async function countsFromEvents(db: Database, projectId: string, from: Date, to: Date) {
  await Promise.all([
    db.query(
      'SELECT event_type, count(*) FROM events WHERE project_id = $1 AND event_ts >= $2 AND event_ts < $3 GROUP BY 1',
      [projectId, from, to],
    ),
    db.query(
      `SELECT date_trunc('day', event_ts, 'UTC'), count(*) FROM events
       WHERE project_id = $1 AND event_ts >= $2 AND event_ts < $3 GROUP BY 1`,
      [projectId, from, to],
    ),
  ]);
}

async function queries(db: Database, now: Date, rollup: boolean): Promise<Record<string, number>> {
  const from = addDays(now, -DAYS);
  const to = new Date(now.getTime() + 1000);
  const range = { from: new Date('0001-01-01T00:00:00Z'), to: new Date('9999-12-31T00:00:00Z') };
  const page = { limit: 51 };
  // Without the rollup (nor its types) the list is read as before migration 011, with neither index to help.
  const list = (after?: [string, string]) =>
    rollup ? listEvents(db, { projectId: 'big', ...range }, { ...page, after }) : listByTimeIndex(db, 'big', after);
  const after = rollup
    ? (await listEvents(db, { projectId: 'big', ...range }, page)).at(-1)!.position
    : await listByTimeIndex(db, 'big');
  return {
    'listing, first page (50)': await median(() => list()),
    'listing, next page (cursor)': await median(() => list(after)),
    'listing, by type': await median(() => listEvents(db, { projectId: 'big', ...range, type: 'error' }, page)),
    'session timeline': await median(() => listEvents(db, { projectId: 'big', ...range, session: 's4242' }, page)),
    'user timeline': await median(() => listEvents(db, { projectId: 'big', ...range, user: 'u4242' }, page)),
    'counts, 30 days by day': await median(() =>
      rollup ? countEvents(db, { projectId: 'big', from, to, bucket: 'day' }) : countsFromEvents(db, 'big', from, to),
    ),
  };
}

async function main(): Promise<void> {
  const adminUrl =
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `bench_read_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let db: Database | undefined;
  try {
    console.log(
      `read benchmark, ${new Date().toISOString()}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    db = await openDatabase({
      url: url.toString(),
      dataDir: `/tmp/${name}`,
      schema: 'ingest',
      poolSize: 4,
      statementTimeoutMs: 0,
    });
    await migrate(db, INGEST_MIGRATIONS);
    for (const p of ['big', 'mid', 'small']) await db.query('INSERT INTO projects (id, name) VALUES ($1, $1)', [p]);
    const now = new Date();
    for (let d = -DAYS; d <= 1; d++) await db.transaction((tx) => createDayPartition(tx, addDays(dayOf(now), d)));
    await db.exec(DROP_READ);

    const loadMs = await load(db, EVENTS, now.getTime(), 'e', DAYS * 86_400_000 - 60_000);
    console.log(`loaded ${EVENTS.toLocaleString('en')} events by COPY in ${(loadMs / 1000).toFixed(0)} s`);
    await db.query('VACUUM ANALYZE events');
    const extra = 100_000;
    const plainInsert = await load(db, extra, now.getTime(), 'p', LIVE_SPAN);
    const without = WITHOUT ? await queries(db, now, false) : undefined;

    let t = performance.now();
    await db.exec(READ_INDEXES);
    const indexMs = performance.now() - t;
    t = performance.now();
    await db.exec(`INSERT INTO event_counts (project_id, hour, event_type, n)
      SELECT project_id, date_trunc('hour', event_ts, 'UTC'), event_type, count(*) FROM events GROUP BY 1, 2, 3`);
    const rollupMs = performance.now() - t;
    await db.exec(`CREATE TRIGGER events_count AFTER INSERT ON events REFERENCING NEW TABLE AS inserted_events
      FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_events()`);
    await db.query('VACUUM ANALYZE events');
    await db.query('ANALYZE event_counts');
    const indexedInsert = await load(db, extra, now.getTime(), 'q', LIVE_SPAN);
    const withIt = await queries(db, now, true);

    // Migration 010's index set against 011's, bracketed: 011, 010, 011.
    t = performance.now();
    await db.exec(TO_010);
    const timeIndexMs = performance.now() - t;
    await db.query('VACUUM ANALYZE events');
    const first = await listEvents(db, { projectId: 'big', ...ALL_TIME }, { limit: 51 });
    const position = first[first.length - 1]!.position;
    const timeIndexList = {
      first: await median(() => listByTimeIndex(db!, 'big')),
      next: await median(() => listByTimeIndex(db!, 'big', position)),
      user: await median(() => listEvents(db!, { projectId: 'big', ...ALL_TIME, user: 'u4242' }, { limit: 51 })),
    };
    const insert010 = await load(db, extra, now.getTime(), 'r', LIVE_SPAN);
    await db.exec(TO_011);
    const insert011 = await load(db, extra, now.getTime(), 's', LIVE_SPAN);
    console.log(
      `010's indexes back in ${(timeIndexMs / 1000).toFixed(0)} s; with them: first page ${timeIndexList.first.toFixed(2)} ms, next page ${timeIndexList.next.toFixed(2)} ms, user timeline ${timeIndexList.user.toFixed(2)} ms`,
    );
    console.log(
      `COPY of ${extra.toLocaleString('en')} live events: ${(indexedInsert / 1000).toFixed(2)} s with 011's indexes, ${(insert010 / 1000).toFixed(2)} s with 010's, ${(insert011 / 1000).toFixed(2)} s with 011's again`,
    );

    console.log(
      `indexes built in ${(indexMs / 1000).toFixed(0)} s, rollup filled in ${(rollupMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `COPY of ${extra.toLocaleString('en')} more events: ${(plainInsert / 1000).toFixed(2)} s without, ${(indexedInsert / 1000).toFixed(2)} s with the indexes and the counting trigger (${((indexedInsert / plainInsert - 1) * 100).toFixed(0)} % more)`,
    );
    console.log('| query | without (ms) | with (ms) | ratio |\n|---|---|---|---|');
    for (const [q, w] of Object.entries(withIt)) {
      const ms = without?.[q];
      console.log(
        `| ${q} | ${ms === undefined ? '–' : ms.toFixed(1)} | ${w.toFixed(2)} | ${ms === undefined ? '–' : `${(ms / w).toFixed(0)}×`} |`,
      );
    }
    const size = await db.query<{ s: string }>(
      "SELECT pg_size_pretty(sum(pg_total_relation_size(inhrelid))) AS s FROM pg_inherits WHERE inhparent = 'events'::regclass",
    );
    console.log(
      `events: ${size.rows[0]?.s ?? '?'} with indexes; load average now ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await db?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
