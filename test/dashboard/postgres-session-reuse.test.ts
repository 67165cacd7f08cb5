import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { postgresDriver } from '../../src/dashboard/sql/postgres-driver.ts';
import type { DataSourceError, ConnectionSettings, DataSourcePool } from '../../src/dashboard/sql/driver.ts';
import { DEFAULT_DENIED_NETWORKS, networkPolicy } from '../../src/dashboard/sql/network.ts';

// A pooled PostgreSQL connection serves one query after another (of any tenant using the source): whatever a query
// did to its session, and however it ended, the next one must find the session as it started. Each test holds one
// connection (maxConnections 1) and checks the backend's pid, so the connection is shown to be reused, not replaced.

const driver = postgresDriver(networkPolicy(DEFAULT_DENIED_NETWORKS, undefined));
let db: FreshDatabase;
let admin: pg.Client;
const settings = (over: Partial<ConnectionSettings> = {}): ConnectionSettings => ({
  url: db.url,
  sslEnabled: false,
  maxConnections: 1,
  queryTimeoutSeconds: 30,
  readOnly: false,
  ...over,
});

// Division by a zero only known at run time, so what comes before it in the select list has run.
const THEN_FAIL = '1 / (random() * 0)::int AS boom';

async function one(pool: DataSourcePool, sql: string): Promise<Record<string, unknown>> {
  return (await pool.run({ sql, values: [], maxRows: 10 })).rows[0]!;
}

async function advisoryLocks(key: number): Promise<number> {
  const r = await admin.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1`, [
    key,
  ]);
  return r.rows[0].n;
}

/**
 * The backend's state once the clean-up of the query just answered is over: a query whose columns the pool already
 * knew is answered before its clean-up, which ends the transaction right after (issue 33).
 */
async function backendState(pid: unknown): Promise<string> {
  for (let i = 0; ; i++) {
    const r = await admin.query('SELECT state FROM pg_stat_activity WHERE pid = $1', [pid]);
    const state = r.rows[0]?.state;
    // The server reports a backend idle a moment after the answer leaves it: 'active' and 'idle in transaction' are
    // waited out (2 s at most), so a backend left in either is still caught.
    if ((state !== 'idle in transaction' && state !== 'active') || i === 200) return state;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

before(async () => {
  db = await freshPostgres('dsreuse');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('CREATE TABLE things (id int PRIMARY KEY); INSERT INTO things VALUES (1), (2);');
});

after(async () => {
  await admin?.end();
  await db?.drop();
});

describe('postgres sessions reused across queries', () => {
  it('a read-only connection reused after failed queries still refuses writes, keeps its timeout and holds nothing', async () => {
    const pool = driver.open(settings({ readOnly: true, queryTimeoutSeconds: 1 }));
    try {
      const { pid } = await one(pool, 'SELECT pg_backend_pid() AS pid');
      await assert.rejects(
        pool.run({
          sql: `SELECT set_config('default_transaction_read_only', 'off', false), set_config('statement_timeout', '0', false), pg_advisory_lock(4301), ${THEN_FAIL}`,
          values: [],
          maxRows: 1,
        }),
        (e: DataSourceError) => e.kind === 'query' && /division by zero/.test(e.message),
      );
      // A session-level advisory lock outlives a rolled-back transaction; only the clean-up releases it.
      assert.equal(await advisoryLocks(4301), 0);
      assert.equal(await backendState(pid), 'idle');
      await assert.rejects(
        pool.run({ sql: 'DELETE FROM things', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'query' && /read-only transaction/.test(e.message),
      );
      assert.equal((await admin.query('SELECT count(*)::int AS n FROM things')).rows[0].n, 2);
      assert.deepEqual(
        await one(
          pool,
          "SELECT current_setting('statement_timeout') AS t, current_setting('transaction_read_only') AS r, current_setting('default_transaction_read_only') AS d, pg_backend_pid() AS pid",
        ),
        { t: '1s', r: 'on', d: 'on', pid },
      );
      // The server's own timeout fires (not the service's backstop two seconds later), and the connection stays.
      await assert.rejects(
        pool.run({ sql: 'SELECT pg_sleep(30)', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'timeout' && /canceling statement due to statement timeout/.test(e.message),
      );
      assert.deepEqual(await one(pool, 'SELECT pg_backend_pid() AS pid'), { pid });
      assert.equal(await backendState(pid), 'idle');
    } finally {
      await pool.close();
    }
  });

  it('a read-only query stopped at maxRows leaves no transaction open', async () => {
    const pool = driver.open(settings({ readOnly: true }));
    try {
      const r = await pool.run({
        sql: 'SELECT g, pg_backend_pid() AS pid FROM generate_series(1, 1000) g',
        values: [],
        maxRows: 3,
      });
      assert.equal(r.truncated, true);
      assert.equal(r.rowCount, 3);
      assert.equal(await backendState(r.rows[0]!.pid), 'idle');
    } finally {
      await pool.close();
    }
  });

  it('whatever a query on a writable source left in its session is gone before the next one, after a success or a failure', async () => {
    const pool = driver.open(settings({ queryTimeoutSeconds: 7 }));
    const probe = `SELECT current_user AS "user", current_setting('search_path') AS path, current_setting('statement_timeout') AS timeout,
        (SELECT count(*) FROM pg_listening_channels())::int AS listening, (SELECT count(*) FROM pg_prepared_statements)::int AS prepared,
        (SELECT count(*) FROM pg_cursors)::int AS cursors, to_regclass('pg_temp.reuse_probe') IS NULL AS no_temp,
        (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::int AS locks, pg_backend_pid() AS pid`;
    try {
      const clean = await one(pool, probe);
      assert.deepEqual(
        {
          path: clean.path,
          timeout: clean.timeout,
          listening: clean.listening,
          prepared: clean.prepared,
          no_temp: clean.no_temp,
          locks: clean.locks,
        },
        { path: '"$user", public', timeout: '7s', listening: 0, prepared: 0, no_temp: true, locks: 0 },
      );
      for (const sql of [
        'SET ROLE pg_monitor',
        'SET search_path = nowhere',
        'SET statement_timeout = 0',
        'LISTEN reuse_probe',
        'PREPARE reuse_probe AS SELECT 1',
        'DECLARE reuse_probe CURSOR WITH HOLD FOR SELECT 1',
        'CREATE TEMP TABLE reuse_probe (x int)',
        'SELECT pg_advisory_lock(4302)',
      ]) {
        await pool.run({ sql, values: [], maxRows: 1 });
        assert.deepEqual(await one(pool, probe), clean, sql);
      }
      await assert.rejects(
        pool.run({
          sql: `SELECT pg_advisory_lock(4303), set_config('search_path', 'nowhere', false), ${THEN_FAIL}`,
          values: [],
          maxRows: 1,
        }),
        (e: DataSourceError) => e.kind === 'query',
      );
      assert.deepEqual(await one(pool, probe), clean);
      assert.equal(await backendState(clean.pid), 'idle');
    } finally {
      await pool.close();
    }
  });

  it('a value that cannot be sent fails the query before anything is written, and the connection stays usable', async () => {
    const pool = driver.open(settings({ readOnly: true }));
    try {
      const { pid } = await one(pool, 'SELECT pg_backend_pid() AS pid');
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await assert.rejects(pool.run({ sql: 'SELECT $1::text AS v', values: [circular], maxRows: 1 }), /circular/i);
      assert.deepEqual(await one(pool, 'SELECT pg_backend_pid() AS pid'), { pid });
      assert.equal(await backendState(pid), 'idle');
    } finally {
      await pool.close();
    }
  });

  it('a query whose columns are known is answered after one exchange, and cleaned up before its connection is reused', async () => {
    const pool = driver.open(settings({ readOnly: true }));
    const sql = 'SELECT id, pg_backend_pid() AS pid, pg_advisory_lock(4302) FROM things WHERE id = 1';
    try {
      const first = await pool.run({ sql, values: [], maxRows: 10 });
      const pid = first.rows[0]!.pid;
      // Exchanges with the source that have been answered, counted when the second run resolves.
      let answered = 0;
      const original = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const done = (args[0] as { done?: unknown } | undefined)?.done;
        if (done instanceof Promise) done.then(() => answered++);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      let answeredAtAnswer = -1;
      try {
        const second = await pool.run({ sql, values: [], maxRows: 10 });
        answeredAtAnswer = answered;
        assert.deepEqual(second.columns, first.columns);
        assert.deepEqual(second.rows, first.rows);
      } finally {
        pg.Client.prototype.query = original;
      }
      assert.equal(answeredAtAnswer, 1, 'the answer waited for the clean-up');
      // The session-level lock the second run took is released by its clean-up, before the connection serves again.
      assert.deepEqual(await one(pool, 'SELECT pg_backend_pid() AS pid'), { pid });
      assert.equal(await advisoryLocks(4302), 0);
      assert.equal(await backendState(pid), 'idle');
    } finally {
      await pool.close();
    }
  });

  it('refuses COPY FROM STDIN (no data to send) and keeps the connection', async () => {
    const pool = driver.open(settings());
    try {
      const { pid } = await one(pool, 'SELECT pg_backend_pid() AS pid');
      await assert.rejects(
        pool.run({ sql: 'COPY things FROM STDIN', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'query' && /COPY FROM STDIN is not supported/.test(e.message),
      );
      assert.equal((await admin.query('SELECT count(*)::int AS n FROM things')).rows[0].n, 2);
      assert.deepEqual(await one(pool, 'SELECT pg_backend_pid() AS pid'), { pid });
    } finally {
      await pool.close();
    }
  });
});
