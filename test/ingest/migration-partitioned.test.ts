import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildIngestApp, INGEST_MIGRATIONS, openIngestDatabase } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { addDays, dayOf, dayPartitionName } from '../../src/ingest/retention/partitions.ts';
import type { Database, Queryable } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import type { App } from '../../src/kit/app.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { ADMIN_TOKEN, makeEvent } from './helpers.ts';

/** The release before partitioning: migrations 001–006 only, in a folder of their own. */
function migrationsBefore(dir: string): string {
  const source = fileURLToPath(INGEST_MIGRATIONS);
  const before = join(dir, 'before');
  mkdirSync(before);
  for (const f of readdirSync(source).filter((f) => /^00[1-6]_.+\.sql$/.test(f)))
    copyFileSync(join(source, f), join(before, f));
  return `${before}/`;
}

const today = dayOf(new Date());
const tomorrow = addDays(today, 1);
const LEGACY = `events_before_${tomorrow.toISOString().slice(0, 10).replaceAll('-', '')}`;

/** Old-schema rows: an event of last year, one of today, one dated two days ahead; a destination queues each. */
async function oldRows(db: Queryable): Promise<Record<string, Record<string, unknown>>> {
  await db.query(`INSERT INTO projects (id, name) VALUES ('p1', 'one')`);
  await db.query(
    `INSERT INTO destinations (id, project_id, name, kind, base_url, credentials_sealed) VALUES ('d1', 'p1', 'hook', 'webhook', 'https://example.com/', 'x')`,
  );
  const events = {
    old: makeEvent('p1', { event_id: 'old', 'event.timestamp': '2025-01-02T03:04:05Z' }),
    today: makeEvent('p1', { event_id: 'today', 'event.timestamp': new Date().toISOString() }),
    ahead: makeEvent('p1', { event_id: 'ahead', 'event.timestamp': addDays(today, 2).toISOString() }),
  };
  for (const e of Object.values(events))
    await db.query(
      `INSERT INTO events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ('p1', $1, 'ui.click', $2, 's', $3)`,
      [e.event_id, e['event.timestamp'], JSON.stringify(e)],
    );
  return events;
}

/** What an upgraded database must show: the rows, their ids, their partitions, the outbox still pointing at them. */
async function checkUpgraded(db: Queryable, idsBefore: Record<string, number>): Promise<void> {
  const kind = await db.query<{ k: string }>(`SELECT relkind::text AS k FROM pg_class WHERE oid = 'events'::regclass`);
  assert.equal(kind.rows[0]!.k, 'p', 'events is a partitioned table');
  const { rows } = await db.query<{ event_id: string; id: number; part: string; body: Record<string, unknown> }>(
    `SELECT event_id, id, tableoid::regclass::text AS part, body FROM events ORDER BY id`,
  );
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.event_id, r.id])), idsBefore, 'every row kept, with its id');
  const part = Object.fromEntries(rows.map((r) => [r.event_id, r.part.replace(/^ingest\./, '')]));
  // The old table is the partition of everything before tomorrow; the event dated ahead moved out of it, to the
  // default partition and then into its day's partition when the service made that one.
  assert.deepEqual(part, { old: LEGACY, today: LEGACY, ahead: dayPartitionName(addDays(today, 2)) });
  const outbox = await db.query<{ event_id: string }>(
    `SELECT e.event_id FROM outbox o JOIN events e ON e.id = o.event_row_id ORDER BY o.id`,
  );
  assert.deepEqual(
    outbox.rows.map((r) => r.event_id),
    ['old', 'today', 'ahead'],
  );
}

async function sendAgain(app: App, key: string, events: Record<string, unknown>[]) {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events }),
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json();
}

async function keyOf(app: App): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/projects/p1/keys',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { name: 'k' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().key;
}

/** After the upgrade: stored events are still recognised, new ones go on from the same sequence and are queued. */
async function checkServing(app: App, db: Queryable, events: Record<string, Record<string, unknown>>) {
  const key = await keyOf(app);
  const fresh = makeEvent('p1', { event_id: 'new', 'event.timestamp': new Date().toISOString() });
  assert.deepEqual(await sendAgain(app, key, [...Object.values(events), fresh]), {
    accepted: 4,
    rejected: 0,
    errors: [],
  });
  const { rows } = await db.query<{ event_id: string; n: number }>(
    'SELECT event_id, count(*)::int AS n FROM events GROUP BY event_id ORDER BY event_id',
  );
  assert.deepEqual(
    rows.map((r) => [r.event_id, r.n]),
    [
      ['ahead', 1],
      ['new', 1],
      ['old', 1],
      ['today', 1],
    ],
  );
  const newest = await db.query<{ event_id: string }>('SELECT event_id FROM events ORDER BY id DESC LIMIT 1');
  assert.equal(newest.rows[0]!.event_id, 'new');
  const queued = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM outbox o JOIN events e ON e.id = o.event_row_id WHERE e.event_id = 'new'`,
  );
  assert.equal(queued.rows[0]!.n, 1, 'the outbox trigger fires on the partitioned table');
}

test('migration 007 turns an events table of the old schema into a partitioned one on PostgreSQL, keeping its rows, ids, outbox and grants', async () => {
  const database = await freshPostgres('partmigrate');
  const tmp = tempDir();
  const reader = `t_reader_${randomBytes(4).toString('hex')}`;
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  try {
    const config = loadIngestConfig({
      DATABASE_URL: database.url,
      DATA_DIR: tmp.path,
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const db = await openIngestDatabase(config);
    let events: Record<string, Record<string, unknown>>;
    try {
      await migrate(db, migrationsBefore(tmp.path));
      events = await oldRows(db);
    } finally {
      await db.close();
    }
    // The dashboards' read-only role, as `platform dashboard provision` grants it.
    await sql.query(`CREATE ROLE ${reader} NOLOGIN`);
    await sql.query(`GRANT USAGE ON SCHEMA ingest TO ${reader}; GRANT SELECT ON ingest.events TO ${reader}`);
    const idsBefore = Object.fromEntries(
      (await sql.query('SELECT event_id, id::int AS id FROM ingest.events ORDER BY id')).rows.map((r) => [
        r.event_id,
        r.id,
      ]),
    );

    const app = await buildIngestApp(config);
    try {
      const client = asQueryable(sql);
      await client.query('SET search_path = ingest');
      await checkUpgraded(client, idsBefore);
      const granted = await sql.query(`SELECT has_table_privilege($1, 'ingest.events', 'SELECT') AS ok`, [reader]);
      assert.equal(granted.rows[0].ok, true, 'the read-only role still reads events');
      await checkServing(app, client, events);
    } finally {
      await app.close();
    }
  } finally {
    await sql.query(`DROP OWNED BY ${reader}`).catch(() => {});
    await sql.end();
    await database.drop();
    const admin = new pg.Client({ connectionString: database.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${reader}`).finally(() => admin.end());
    tmp.remove();
  }
});

test('migration 007 upgrades the embedded database (PGlite) the same way', async () => {
  const tmp = tempDir();
  try {
    const config = loadIngestConfig({ DATA_DIR: tmp.path, LOG_LEVEL: 'silent', INGEST_ADMIN_TOKEN: ADMIN_TOKEN });
    let db: Database = await openIngestDatabase(config);
    let events: Record<string, Record<string, unknown>>;
    let idsBefore: Record<string, number>;
    try {
      await migrate(db, migrationsBefore(tmp.path));
      events = await oldRows(db);
      idsBefore = Object.fromEntries(
        (await db.query<{ event_id: string; id: number }>('SELECT event_id, id FROM events ORDER BY id')).rows.map(
          (r) => [r.event_id, Number(r.id)],
        ),
      );
    } finally {
      await db.close();
    }
    const app = await buildIngestApp(config);
    try {
      const key = await keyOf(app);
      assert.deepEqual(await sendAgain(app, key, Object.values(events)), { accepted: 3, rejected: 0, errors: [] });
    } finally {
      await app.close();
    }
    db = await openIngestDatabase(config);
    try {
      await checkUpgraded(db, idsBefore);
    } finally {
      await db.close();
    }
  } finally {
    tmp.remove();
  }
});

function asQueryable(client: pg.Client): Queryable {
  return {
    query: async (text, params) => {
      const r = await client.query(text, params as unknown[] | undefined);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    exec: async (text) => void (await client.query(text)),
  };
}
