import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

let h: IngestHarness;
let sql: pg.Client;

before(async () => {
  h = await startIngest({ INGEST_COMMIT_CONCURRENCY: '1' }, 'storage');
  sql = new pg.Client({ connectionString: h.database.url });
  // Terminated on purpose by the outage test; without a listener that would be an uncaught error.
  sql.on('error', () => {});
  await sql.connect();
});

after(async () => {
  await sql.end();
  await h.close();
});

const post = (key: string, events: unknown[]) =>
  h.app.inject({ method: 'POST', url: '/v1/events', headers: { 'x-svc-api-key': key }, payload: { events } });
const metric = async (name: string) =>
  Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await h.app.inject({ url: '/metrics' })).body)?.[1] ?? NaN);

test('concurrent requests share commits, and every one of them is stored', async () => {
  const { projectId, key } = await h.project();
  const commitsBefore = await metric('ingest_commit_duration_seconds_count');
  const batches = Array.from({ length: 40 }, () => Array.from({ length: 50 }, () => makeEvent(projectId)));
  const answers = await Promise.all(batches.map((events) => post(key, events)));
  for (const a of answers) assert.deepEqual(a.json(), { accepted: 50, rejected: 0, errors: [] });
  const commits = (await metric('ingest_commit_duration_seconds_count')) - commitsBefore;
  assert.ok(commits >= 1 && commits < 40, `40 requests took ${commits} commits`);
  const stored = (await sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE project_id = $1', [projectId]))
    .rows[0].n;
  assert.equal(stored, 2000);
});

test('a request whose rows fail in the database does not sink the others of its group', async () => {
  const { projectId, key } = await h.project();
  // A statement trigger standing in for any failure inside the commit (the forwarding outbox trigger runs there too).
  await sql.query(`
    CREATE FUNCTION ingest.test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM new_rows WHERE event_id = 'poison') THEN RAISE EXCEPTION 'poisoned batch'; END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER test_poison AFTER INSERT ON ingest.events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ingest.test_poison();`);
  try {
    const batches = Array.from({ length: 12 }, (_, i) => [
      makeEvent(projectId, i === 5 ? { event_id: 'poison' } : {}),
      makeEvent(projectId),
    ]);
    const answers = await Promise.all(batches.map((events) => post(key, events)));
    for (const [i, a] of answers.entries()) assert.equal(a.statusCode, i === 5 ? 500 : 202, `request ${i}: ${a.body}`);
    assert.deepEqual(answers[5]!.json(), { error: { code: 'INTERNAL_ERROR', message: 'internal server error' } });
    const stored = (await sql.query('SELECT event_id FROM ingest.events WHERE project_id = $1', [projectId])).rows.map(
      (r) => r.event_id,
    );
    assert.equal(stored.length, 22);
    assert.ok(!stored.includes('poison'));
    assert.ok(!stored.includes(batches[5]![1]!.event_id), 'nothing of the failed request is stored');
  } finally {
    await sql.query('DROP TRIGGER test_poison ON ingest.events; DROP FUNCTION ingest.test_poison()');
  }
});

test('an event row needs its project, and a project keeps existing while it has events (checked once per INSERT)', async () => {
  const { projectId, key } = await h.project();
  const insert = (project: string, eventId: string) =>
    sql.query(
      `INSERT INTO ingest.events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ($1, $2, 'ui.click', now(), 's', '{}')`,
      [project, eventId],
    );
  await assert.rejects(
    insert('no-such-project', 'x1'),
    (err: { code?: string; message: string }) => err.code === '23503' && err.message.includes('no-such-project'),
  );
  // One unknown project among known ones fails the whole statement.
  await assert.rejects(
    sql.query(
      `INSERT INTO ingest.events (project_id, event_id, event_type, event_ts, session_id, body) VALUES ($1, 'x2', 'ui.click', now(), 's', '{}'), ('no-such-project', 'x3', 'ui.click', now(), 's', '{}')`,
      [projectId],
    ),
    (err: { code?: string }) => err.code === '23503',
  );
  assert.equal(
    (await sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE project_id = $1', [projectId])).rows[0].n,
    0,
  );

  assert.equal((await post(key, [makeEvent(projectId)])).statusCode, 202);
  await assert.rejects(
    sql.query('DELETE FROM ingest.projects WHERE id = $1', [projectId]),
    (err: { code?: string }) => err.code === '23503',
  );
  await assert.rejects(
    sql.query(`UPDATE ingest.projects SET id = 'renamed' WHERE id = $1`, [projectId]),
    (err: { code?: string }) => err.code === '23503',
  );
  await sql.query(`UPDATE ingest.projects SET name = 'renamed' WHERE id = $1`, [projectId]);

  const empty = await h.project();
  await sql.query('DELETE FROM ingest.api_keys WHERE project_id = $1', [empty.projectId]);
  assert.equal((await sql.query('DELETE FROM ingest.projects WHERE id = $1', [empty.projectId])).rowCount, 1);
});

test('database unreachable: 503 with Retry-After, /ready 503, nothing acknowledged that was not stored', async () => {
  const cached = await h.project();
  const fresh = await h.project();
  const before = [makeEvent(cached.projectId), makeEvent(cached.projectId)];
  assert.equal((await post(cached.key, before)).statusCode, 202);

  const dbName = new URL(h.database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [dbName],
  );
  await sql.end().catch(() => {});
  try {
    const during = [makeEvent(cached.projectId), makeEvent(cached.projectId)];
    // The key is cached, so this reaches the commit, which cannot happen.
    const refused = await post(cached.key, during);
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.json().error.code, 'UNAVAILABLE');
    // A key never seen before cannot be checked: also 503, not 401.
    const unchecked = await post(fresh.key, [makeEvent(fresh.projectId)]);
    assert.equal(unchecked.statusCode, 503);
    assert.equal(unchecked.headers['retry-after'], '5');
    const ready = await h.app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), { status: 'not ready' });
    assert.deepEqual((await h.app.inject({ url: '/health' })).json(), { status: 'ok' });

    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    sql = new pg.Client({ connectionString: h.database.url });
    await sql.connect();
    const ids = (events: Record<string, unknown>[]) => events.map((e) => e.event_id as string);
    const stored = async (events: Record<string, unknown>[]) =>
      (await sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE event_id = ANY($1)', [ids(events)])).rows[0]
        .n;
    assert.equal(await stored(before), 2, 'what was acknowledged is stored');
    assert.equal(await stored(during), 0, 'what was refused is not');
    // The client's retry goes through once the database is back.
    assert.deepEqual((await post(cached.key, during)).json(), { accepted: 2, rejected: 0, errors: [] });
    assert.equal(await stored(during), 2);
    assert.equal((await h.app.inject({ url: '/ready' })).statusCode, 200);
  } finally {
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    await admin.end();
  }
});
