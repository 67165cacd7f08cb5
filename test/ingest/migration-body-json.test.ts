import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildIngestApp, INGEST_MIGRATIONS, openIngestDatabase } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

test('migration 006 turns stored jsonb bodies into json without changing them, and the outbox trigger still fires', async () => {
  const database = await freshPostgres('bodyjson');
  const tmp = tempDir();
  try {
    // The release before: migrations 001–005 only, with an event stored as jsonb.
    const dir = fileURLToPath(INGEST_MIGRATIONS);
    const before = join(tmp.path, 'before');
    mkdirSync(before);
    for (const f of readdirSync(dir).filter((f) => /^00[1-5]_.+\.sql$/.test(f)))
      copyFileSync(join(dir, f), join(before, f));
    const config = loadIngestConfig({ DATABASE_URL: database.url, DATA_DIR: tmp.path, LOG_LEVEL: 'silent' });
    const db = await openIngestDatabase(config);
    const body = {
      event_id: 'e1',
      project_id: 'p1',
      'session.id': 's',
      'event.type': 'api.response',
      'event.timestamp': '2025-01-02T03:04:05Z',
      'api.duration_ms': 42,
      metadata: { title: 'Example — é 🥾', deep: [1, { a: null }] },
    };
    try {
      await migrate(db, `${before}/`);
      await db.query(`INSERT INTO projects (id, name) VALUES ('p1', 'one')`);
      await db.query(
        `INSERT INTO events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ('p1', 'e1', 'api.response', now(), 's', $1::jsonb)`,
        [JSON.stringify(body)],
      );
      const type = await db.query<{ t: string }>(
        `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'body'`,
      );
      assert.equal(type.rows[0]!.t, 'jsonb');
    } finally {
      await db.close();
    }

    // Starting today's service applies 006.
    const app = await buildIngestApp(config);
    await app.close();
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const type = await sql.query(
        `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'ingest.events'::regclass AND attname = 'body'`,
      );
      assert.equal(type.rows[0].t, 'json');
      const row = await sql.query(
        `SELECT body, json_typeof(body->'api.duration_ms') AS kind, body->'metadata'->>'title' AS title FROM ingest.events WHERE event_id = 'e1'`,
      );
      assert.deepEqual(row.rows[0].body, body);
      assert.equal(row.rows[0].kind, 'number');
      assert.equal(row.rows[0].title, 'Example — é 🥾');

      // The outbox trigger and the project check survive the column change.
      await sql.query(
        `INSERT INTO ingest.destinations (id, project_id, name, kind, base_url, credentials_sealed) VALUES ('d1', 'p1', 'hook', 'webhook', 'https://example.com', 'x')`,
      );
      await sql.query(
        `INSERT INTO ingest.events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ('p1', 'e2', 'custom', now(), 's', '{"event_id":"e2"}')`,
      );
      assert.equal((await sql.query(`SELECT count(*)::int AS n FROM ingest.outbox`)).rows[0].n, 1);
      await assert.rejects(
        sql.query(
          `INSERT INTO ingest.events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ('nope', 'e3', 'custom', now(), 's', '{}')`,
        ),
        (err: { code?: string }) => err.code === '23503',
      );
    } finally {
      await sql.end();
    }
  } finally {
    await database.drop();
    tmp.remove();
  }
});
