import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, TEST_POSTGRES_URL, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { makeEvent } from './helpers.ts';
import { waitFor } from './forwarding-helpers.ts';

/** The real service's log (`platform start ingest`, pino lines on stdout) through a database outage. */

const ADMIN = 'outage-log-admin-token-0123456789';
let database: FreshDatabase;
const dataDir = tempDir();
let service: ServiceProcess;

before(async () => {
  database = await freshPostgres('outagelog');
  service = await startServiceProcess('ingest', {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'info',
    INGEST_ADMIN_TOKEN: ADMIN,
    INGEST_KEY_CACHE_SECONDS: '300',
    PLATFORM_SECRET_KEY: 'c'.repeat(64),
    // The delivery worker polls the database every 20 ms: its polls meet the outage too.
    INGEST_FORWARDING_ENABLED: 'true',
    INGEST_FORWARDING_POLL_MS: '20',
  });
});

after(async () => {
  service?.child.kill('SIGKILL');
  await database.drop();
  dataDir.remove();
});

/** The service's complete log lines so far (a line still being written is left for the next look). */
function logLines(): Record<string, any>[] {
  const text = service.stdout();
  return text
    .slice(0, text.lastIndexOf('\n'))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

async function call(path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

test('a database outage is logged once when it begins and once when it ends, not once per 503', async () => {
  const admin = { authorization: `Bearer ${ADMIN}` };
  assert.equal((await call('/api/v1/projects', { name: 'outage', id: 'outage' }, admin)).status, 201);
  const { key } = (await (await call('/api/v1/projects/outage/keys', { name: 'k' }, admin)).json()) as { key: string };
  const send = () => call('/v1/events', { events: [makeEvent('outage')] }, { 'x-svc-api-key': key });
  assert.equal((await send()).status, 202);

  const dbName = new URL(database.url).pathname.slice(1);
  const sql = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await sql.connect();
  try {
    await sql.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await sql.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName],
    );
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push((await send()).status);
    assert.deepEqual(answers, Array(20).fill(503));
  } finally {
    await sql.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    await sql.end();
  }
  await waitFor('a commit after the outage', async () => (await send()).status === 202);
  await waitFor('the line saying the database is back', () =>
    logLines().some((l) => l.msg === 'database available again'),
  );
  const lines = logLines();

  const down = lines.filter((l) => /^database unavailable/.test(l.msg));
  assert.equal(down.length, 1, JSON.stringify(down));
  assert.equal(down[0]!.level, 50);
  const up = lines.filter((l) => l.msg === 'database available again');
  assert.equal(up.length, 1);
  assert.ok(up[0]!.failures >= 20, JSON.stringify(up[0]));
  // Nothing else at warning level or above: no error line per refused request.
  const loud = lines.filter((l) => l.level >= 40 && l !== down[0] && l !== up[0]);
  assert.deepEqual(loud, []);
});
