import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildIngestApp, INGEST_MIGRATIONS, openIngestDatabase } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { DESTINATION_KINDS } from '../../src/ingest/forwarding/vendors/index.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { createDestination, sendEvents } from './forwarding-helpers.ts';

let h: IngestHarness;

before(async () => {
  h = await startIngest({}, 'schema');
});

after(async () => {
  await h.close();
});

test('the trigger that feeds the outbox exists on events and writes one entry per stored event and enabled destination', async () => {
  const trigger = await h.sql.query(
    `SELECT t.tgname, p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE t.tgrelid = 'ingest.events'::regclass AND NOT t.tgisinternal ORDER BY t.tgname`,
  );
  assert.deepEqual(trigger.rows, [
    { tgname: 'events_check_project', proname: 'check_inserted_event_projects' },
    // The hourly counts the read API answers from (migration 010).
    { tgname: 'events_count', proname: 'count_inserted_events' },
    { tgname: 'events_enqueue_for_forwarding', proname: 'enqueue_for_forwarding' },
  ]);

  const { projectId, key } = await h.project();
  const on = await createDestination(h, projectId, {
    name: 'on',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/a',
  });
  await createDestination(h, projectId, {
    name: 'off',
    kind: 'webhook',
    base_url: 'https://hooks.example.com/b',
    enabled: false,
  });
  const events = [makeEvent(projectId), makeEvent(projectId)];
  await sendEvents(h, key, events);
  // The same events again: not stored again, so not queued again.
  await sendEvents(h, key, events);
  const outbox = await h.sql.query(
    `SELECT o.destination_id, e.event_id FROM ingest.outbox o JOIN ingest.events e ON e.id = o.event_row_id WHERE e.project_id = $1 ORDER BY o.id`,
    [projectId],
  );
  assert.deepEqual(
    outbox.rows,
    events.map((e) => ({ destination_id: on.id, event_id: e.event_id })),
  );
});

test('the kind CHECK of destinations allows exactly DESTINATION_KINDS', async () => {
  const { rows } = await h.sql.query(
    `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
     WHERE c.conrelid = 'ingest.destinations'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%kind%'`,
  );
  assert.equal(rows.length, 1, JSON.stringify(rows));
  const inSql = [...(rows[0].def as string).matchAll(/'([^']*)'/g)].map((m) => m[1]);
  assert.deepEqual([...inSql].sort(), [...DESTINATION_KINDS].sort());

  const { projectId } = await h.project();
  const insert = (kind: string) =>
    h.sql.query(
      `INSERT INTO ingest.destinations (id, project_id, name, kind, base_url, credentials_sealed) VALUES ($1, $2, $1, $3, 'https://x.example/', 'x')`,
      [`dst_${kind}_check`, projectId, kind],
    );
  for (const kind of DESTINATION_KINDS) await insert(kind);
  await assert.rejects(insert('snowplow'), (err: { code?: string }) => err.code === '23514');
});

test('migrations are numbered in one sequence, and every renamed one maps an old name to a file that exists', () => {
  const dir = fileURLToPath(INGEST_MIGRATIONS);
  const files = readdirSql(dir);
  assert.deepEqual(
    files.map((f) => Number(f.slice(0, 3))),
    files.map((_, i) => i + 1),
  );
  const renamed = JSON.parse(readFileSync(join(dir, 'renamed.json'), 'utf8')) as Record<string, string>;
  for (const to of Object.values(renamed)) assert.ok(files.includes(to), to);
});

test('a database migrated under the old numbering (100, 101, 102) upgrades: the recorded names are rewritten, nothing is applied twice', async () => {
  const database = await freshPostgres('schemaold');
  const tmp = tempDir();
  try {
    const dir = fileURLToPath(INGEST_MIGRATIONS);
    const renamed = JSON.parse(readFileSync(join(dir, 'renamed.json'), 'utf8')) as Record<string, string>;
    const oldDir = join(tmp.path, 'old');
    mkdirSync(oldDir);
    // The old release: the first migrations of today under their names of then.
    const oldNames = new Map(Object.entries(renamed).map(([from, to]) => [to, from]));
    const oldFiles = ['001_projects_keys_events.sql', ...oldNames.keys()];
    for (const f of oldFiles) copyFileSync(join(dir, f), join(oldDir, oldNames.get(f) ?? f));
    const config = loadIngestConfig({ DATABASE_URL: database.url, DATA_DIR: tmp.path, LOG_LEVEL: 'silent' });
    const db = await openIngestDatabase(config);
    try {
      assert.deepEqual((await migrate(db, `${oldDir}/`)).applied, [
        '001_projects_keys_events.sql',
        '100_forwarding.sql',
        '101_events_project_check.sql',
        '102_destination_url_sealed.sql',
      ]);
    } finally {
      await db.close();
    }

    const app = await buildIngestApp(config);
    await app.close();
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const names = (await sql.query('SELECT name FROM ingest.schema_migrations ORDER BY name')).rows.map(
        (r) => r.name,
      );
      assert.deepEqual(names, readdirSql(dir));
      const triggers = await sql.query(
        `SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'ingest.events'::regclass AND NOT tgisinternal`,
      );
      // The project check, the forwarding outbox and the read API's counts.
      assert.equal(triggers.rows[0].n, 3);
    } finally {
      await sql.end();
    }
  } finally {
    await database.drop();
    tmp.remove();
  }
});

function readdirSql(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort();
}
