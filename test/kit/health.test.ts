import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp } from '../../src/kit/app.ts';
import { openDatabase } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import pg from 'pg';
import { TEST_POSTGRES_URL, freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const tmp = tempDir();
const pgdb = await freshPostgres('kithealth');
after(async () => {
  await pgdb.drop();
  tmp.remove();
});

function migrations(name: string, files: Record<string, string>): URL {
  const dir = join(tmp.path, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, sql] of Object.entries(files)) writeFileSync(join(dir, f), sql);
  return pathToFileURL(dir + '/');
}

test("/health answers alone; /ready needs the database, every migration and the service's own checks", async () => {
  const dir = migrations('m1', { '001_a.sql': 'CREATE TABLE a (x int);' });
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'health_a', poolSize: 2 });
  let extraOk = true;
  const app = await createApp({
    name: 'example',
    version: '1',
    logLevel: 'silent',
    database: { db, migrations: dir, checks: [{ name: 'extra', check: async () => extraOk }] },
  });
  try {
    assert.deepEqual((await app.inject({ url: '/health' })).json(), { status: 'ok' });
    const before = await app.inject({ url: '/ready' });
    assert.equal(before.statusCode, 503, 'migrations not applied yet');
    assert.deepEqual(before.json(), { status: 'not ready' });
    await migrate(db, dir);
    assert.equal((await app.inject({ url: '/ready' })).statusCode, 200);
    assert.deepEqual((await app.inject({ url: '/ready' })).json(), { status: 'ready' });
    extraOk = false;
    assert.equal((await app.inject({ url: '/ready' })).statusCode, 503, 'a failing service check');
    extraOk = true;
    // A newer migration file than the database has (an instance of the next version beside an old schema).
    writeFileSync(new URL('002_b.sql', dir), 'CREATE TABLE b (x int);');
    const behind = await createApp({
      name: 'example',
      version: '1',
      logLevel: 'silent',
      database: {
        db: await openDatabase({ url: pgdb.url, dataDir: '', schema: 'health_a', poolSize: 1 }),
        migrations: dir,
      },
    });
    assert.equal((await behind.inject({ url: '/ready' })).statusCode, 503);
    await behind.close();
  } finally {
    await app.close();
  }
  // Closing the app closed the database: pg-pool refuses any further query.
  await assert.rejects(db.query('SELECT 1'), {
    name: 'Error',
    message: 'Cannot use a pool after calling end on the pool',
  });
});

test("a database that cannot answer: /ready 503 and routes 503 with Retry-After in the service's shape, never 500", async () => {
  const dir = migrations('m2', { '001_a.sql': 'CREATE TABLE a (x int);' });
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'health_b', poolSize: 2 });
  await migrate(db, dir);
  const app = await createApp({
    name: 'example',
    version: '1',
    logLevel: 'silent',
    retryAfterSeconds: 7,
    errorBody: (e) => ({ error: e.code, error_description: e.message }),
    database: { db, migrations: dir },
  });
  app.get('/rows', async () => (await db.query('SELECT count(*) AS n FROM a')).rows[0]);
  app.get('/bad-sql', async () => (await db.query('SELECT * FROM no_such_table')).rows);
  try {
    assert.equal((await app.inject({ url: '/rows' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/bad-sql' })).statusCode, 500, 'a fault in the statement stays a 500');
    const name = new URL(pgdb.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    try {
      const res = await app.inject({ url: '/rows' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '7');
      assert.equal(res.json().error, 'UNAVAILABLE');
      assert.match(res.json().error_description, /database is unavailable/);
      assert.equal((await app.inject({ url: '/ready' })).statusCode, 503);
      assert.equal((await app.inject({ url: '/health' })).statusCode, 200);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    assert.equal((await app.inject({ url: '/rows' })).statusCode, 200, 'served again once the database is back');
    assert.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  } finally {
    await app.close();
  }
});
