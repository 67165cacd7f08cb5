import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { waitFor } from '../support/wait.ts';
import { postgresDriver } from '../../src/dashboard/sql/postgres-driver.ts';
import { DataSourceError, type ConnectionSettings } from '../../src/dashboard/sql/driver.ts';
import { DEFAULT_DENIED_NETWORKS, networkPolicy } from '../../src/dashboard/sql/network.ts';
import { executeQuery } from '../../src/dashboard/sql/execute.ts';
import { PoolRegistry } from '../../src/dashboard/sql/pool-registry.ts';
import { StatementError } from '../../src/dashboard/sql/statement.ts';

const policy = networkPolicy(DEFAULT_DENIED_NETWORKS, undefined);
const driver = postgresDriver(policy);
let db: FreshDatabase;
let admin: pg.Client;
const settings = (over: Partial<ConnectionSettings> = {}): ConnectionSettings => ({
  url: db.url,
  sslEnabled: false,
  maxConnections: 2,
  queryTimeoutSeconds: 30,
  readOnly: false,
  ...over,
});

async function activeLike(fragment: string): Promise<number> {
  const r = await admin.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
    [`%${fragment}%`],
  );
  return r.rows[0].n;
}

before(async () => {
  db = await freshPostgres('dsqpg');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`
    CREATE TABLE things (
      id int PRIMARY KEY, big bigint NOT NULL, price numeric(10,2), name varchar(20) NOT NULL, code char(3),
      at timestamptz, day date, local timestamp(3), raw bytea, doc jsonb, tags int[], labels text[], ratio float8, span interval, ok boolean
    );
    INSERT INTO things VALUES
      (1, 9007199254740993, 12.30, 'first', 'abc', '2024-05-06 07:08:09.123456+02', '2024-05-06', '2024-05-06 07:08:09.5', '\\x00ff10', '{"a":[1,2]}', '{1,NULL,3}', '{"x y",z}', 'NaN', '1 day 2 hours', true),
      (2, -1, NULL, 'second', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1.5, NULL, NULL);
    CREATE VIEW thing_names AS SELECT id, name FROM things;
    CREATE TABLE other_stuff (x int);
  `);
});

after(async () => {
  await admin?.end();
  await db?.drop();
});

describe('postgres driver', () => {
  it('returns JSON-safe values and column descriptors', async () => {
    const pool = driver.open(settings());
    try {
      const r = await pool.run({ sql: 'SELECT * FROM things ORDER BY id', values: [], maxRows: 10 });
      assert.equal(r.rowCount, 2);
      assert.equal(r.truncated, false);
      const row = r.rows[0]!;
      assert.equal(row.big, '9007199254740993');
      assert.equal(row.price, '12.30');
      assert.equal(row.at, '2024-05-06T05:08:09.123456Z');
      assert.equal(row.day, '2024-05-06');
      assert.equal(row.local, '2024-05-06T07:08:09.5');
      assert.equal(row.raw, Buffer.from([0, 255, 16]).toString('base64'));
      assert.deepEqual(row.doc, { a: [1, 2] });
      assert.deepEqual(row.tags, [1, null, 3]);
      assert.deepEqual(row.labels, ['x y', 'z']);
      assert.equal(row.ratio, 'NaN');
      assert.equal(row.span, 'P1DT2H');
      assert.equal(row.ok, true);
      assert.equal(r.rows[1]!.ratio, 1.5);
      const col = (n: string) => r.columns.find((c) => c.name === n);
      assert.deepEqual(col('id'), { name: 'id', type: 'integer', nullable: false });
      assert.deepEqual(col('big'), { name: 'big', type: 'bigint', nullable: false });
      assert.deepEqual(col('price'), { name: 'price', type: 'numeric', nullable: true, precision: 10, scale: 2 });
      assert.deepEqual(col('name'), { name: 'name', type: 'character varying', nullable: false, length: 20 });
      assert.deepEqual(col('code'), { name: 'code', type: 'character', nullable: true, length: 3 });
      assert.deepEqual(col('local'), {
        name: 'local',
        type: 'timestamp without time zone',
        nullable: true,
        precision: 3,
      });
      assert.deepEqual(col('tags'), { name: 'tags', type: 'integer[]', nullable: true });
      const computed = await pool.run({ sql: 'SELECT 1 + 1 AS two', values: [], maxRows: 10 });
      assert.deepEqual(computed.columns, [{ name: 'two', type: 'integer', nullable: true }]);
    } finally {
      await pool.close();
    }
  });

  it('stops reading at maxRows and says the result was truncated', async () => {
    const pool = driver.open(settings());
    try {
      const r = await pool.run({ sql: 'SELECT g FROM generate_series(1, 100000) g', values: [], maxRows: 5 });
      assert.deepEqual(
        r.rows.map((x) => x.g),
        [1, 2, 3, 4, 5],
      );
      assert.equal(r.truncated, true);
      const exact = await pool.run({ sql: 'SELECT g FROM generate_series(1, 5) g', values: [], maxRows: 5 });
      assert.equal(exact.truncated, false);
      assert.equal(exact.rowCount, 5);
    } finally {
      await pool.close();
    }
  });

  it('binds values and never splices them', async () => {
    const pool = driver.open(settings());
    try {
      const r = await executeQuery(pool, {
        type: 'postgres',
        readOnly: false,
        query: 'SELECT name FROM things WHERE name = :n OR id = @id',
        parameters: { n: "x' OR '1'='1", id: 2 },
        maxRows: 10,
      });
      assert.deepEqual(r.rows, [{ name: 'second' }]);
      assert.equal(typeof r.executionTimeMs, 'number');
    } finally {
      await pool.close();
    }
  });

  it('the server refuses two statements even when the text check is bypassed', async () => {
    const pool = driver.open(settings());
    try {
      await assert.rejects(
        pool.run({ sql: 'DELETE FROM things; SELECT 1', values: [], maxRows: 10 }),
        (e: DataSourceError) => e.kind === 'query' && /multiple commands/.test(e.message),
      );
      assert.equal((await admin.query('SELECT count(*)::int AS n FROM things')).rows[0].n, 2);
    } finally {
      await pool.close();
    }
  });

  it('a read-only source runs in a read-only transaction that is rolled back', async () => {
    const pool = driver.open(settings({ readOnly: true }));
    try {
      for (const sql of [
        'DELETE FROM things',
        'WITH d AS (DELETE FROM things RETURNING *) SELECT * FROM d',
        'SELECT * INTO copy FROM things',
        'SELECT * FROM things FOR UPDATE',
        "SELECT nextval('x')",
      ]) {
        await assert.rejects(pool.run({ sql, values: [], maxRows: 10 }), DataSourceError, sql);
      }
      await assert.rejects(
        executeQuery(pool, {
          type: 'postgres',
          readOnly: true,
          query: 'COMMIT; DELETE FROM things',
          parameters: {},
          maxRows: 10,
        }),
        StatementError,
      );
      await assert.rejects(
        executeQuery(pool, {
          type: 'postgres',
          readOnly: true,
          query: 'DELETE FROM things',
          parameters: {},
          maxRows: 10,
        }),
        /read-only/,
      );
      assert.equal((await admin.query('SELECT count(*)::int AS n FROM things')).rows[0].n, 2);
      const ok = await executeQuery(pool, {
        type: 'postgres',
        readOnly: true,
        query: 'SELECT count(*) AS n FROM things',
        parameters: {},
        maxRows: 10,
      });
      assert.deepEqual(ok.rows, [{ n: '2' }]);
    } finally {
      await pool.close();
    }
  });

  it('hands no connection back dirty: advisory locks and settings are gone after the query', async () => {
    const pool = driver.open(settings({ maxConnections: 1, readOnly: true }));
    try {
      await pool.run({ sql: 'SELECT pg_advisory_lock(4242)', values: [], maxRows: 1 });
      const locks = await admin.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242`,
      );
      assert.equal(locks.rows[0].n, 0);
      const writable = driver.open(settings({ maxConnections: 1, queryTimeoutSeconds: 7 }));
      try {
        await writable.run({ sql: 'SET statement_timeout = 0', values: [], maxRows: 1 });
        await writable.run({ sql: 'SET search_path = nowhere', values: [], maxRows: 1 });
        const r = await writable.run({
          sql: 'SELECT current_setting($1) AS t, current_setting($2) AS p',
          values: ['statement_timeout', 'search_path'],
          maxRows: 1,
        });
        assert.deepEqual(r.rows[0], { t: '7s', p: '"$user", public' });
        await assert.rejects(
          writable.run({ sql: 'SELECT 1/0', values: [], maxRows: 1 }),
          (e: DataSourceError) => e.kind === 'query' && /division by zero/.test(e.message),
        );
        assert.deepEqual((await writable.run({ sql: 'SELECT 1 AS one', values: [], maxRows: 1 })).rows, [{ one: 1 }]);
      } finally {
        await writable.close();
      }
    } finally {
      await pool.close();
    }
  });

  it('cancels a query in the database when the timeout passes', async () => {
    const pool = driver.open(settings({ queryTimeoutSeconds: 1 }));
    try {
      await assert.rejects(
        pool.run({ sql: 'SELECT pg_sleep(30) AS timeout_probe', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'timeout',
      );
      assert.equal(await activeLike('timeout_probe'), 0);
      assert.deepEqual((await pool.run({ sql: 'SELECT 2 AS two', values: [], maxRows: 1 })).rows, [{ two: 2 }]);
    } finally {
      await pool.close();
    }
  });

  it('cancels a query in the database when the client goes away', async () => {
    const pool = driver.open(settings());
    try {
      const abort = new AbortController();
      const running = pool.run({
        sql: 'SELECT pg_sleep(30) AS abort_probe',
        values: [],
        maxRows: 1,
        signal: abort.signal,
      });
      await waitFor('the statement abort_probe to run', async () => (await activeLike('abort_probe')) === 1);
      abort.abort();
      await assert.rejects(running, (e: DataSourceError) => e.kind === 'cancelled');
      assert.equal(await activeLike('abort_probe'), 0);
    } finally {
      await pool.close();
    }
  });

  it('tests a connection without caching it, and says why one fails without the URL or password', async () => {
    await driver.test(settings());
    const nowhere = 'postgres://someone:s3cret-pw@127.0.0.1:1/nothing';
    await assert.rejects(
      driver.test(settings({ url: nowhere })),
      (e: DataSourceError) =>
        e.kind === 'connect' &&
        /ECONNREFUSED/.test(e.message) &&
        !e.message.includes('s3cret-pw') &&
        !e.message.includes(nowhere),
    );
    const missing = new URL(db.url);
    missing.pathname = '/no_such_database_here';
    missing.password = 'hunter2hunter2';
    await assert.rejects(
      driver.test(settings({ url: missing.toString() })),
      (e: DataSourceError) =>
        e.kind === 'connect' && /does not exist/.test(e.message) && !e.message.includes('hunter2'),
    );
  });

  it('refuses link-local and metadata addresses before connecting', async () => {
    for (const host of ['169.254.169.254', '[fe80::1]', '0.0.0.0', '[::ffff:169.254.169.254]']) {
      await assert.rejects(
        driver.test(settings({ url: `postgres://u:p@${host}:5432/db` })),
        (e: DataSourceError) => e.kind === 'network',
        host,
      );
    }
    const narrow = postgresDriver(networkPolicy(DEFAULT_DENIED_NETWORKS, ['10.0.0.0/8']));
    await assert.rejects(narrow.test(settings()), (e: DataSourceError) => e.kind === 'network');
  });

  it('browses tables and views with a filter and columns', async () => {
    const pool = driver.open(settings());
    try {
      const all = await pool.schema({ columns: false });
      assert.deepEqual(all, [
        { schema: 'public', name: 'other_stuff', type: 'table' },
        { schema: 'public', name: 'thing_names', type: 'view' },
        { schema: 'public', name: 'things', type: 'table' },
      ]);
      const filtered = await pool.schema({ filter: 'THING', columns: true });
      assert.deepEqual(
        filtered.map((t) => t.name),
        ['thing_names', 'things'],
      );
      assert.deepEqual(filtered[0]!.columns, [
        { name: 'id', type: 'integer', nullable: true },
        { name: 'name', type: 'character varying', nullable: true, length: 20 },
      ]);
      assert.deepEqual(
        filtered[1]!.columns!.find((c) => c.name === 'price'),
        { name: 'price', type: 'numeric', nullable: true, precision: 10, scale: 2 },
      );
      assert.deepEqual(
        (await pool.schema({ filter: 'oth*', columns: false })).map((t) => t.name),
        ['other_stuff'],
      );
      assert.deepEqual(await pool.schema({ schema: 'no_such_schema', columns: false }), []);
    } finally {
      await pool.close();
    }
  });

  it('keeps one pool per data source and replaces it when settings change', async () => {
    const registry = new PoolRegistry({ postgres: driver, mysql: driver });
    try {
      const a = registry.pool(1, 'postgres', settings());
      assert.equal(registry.pool(1, 'postgres', settings()), a);
      await a.run({ sql: 'SELECT 1', values: [], maxRows: 1 });
      const b = registry.pool(1, 'postgres', settings({ maxConnections: 3 }));
      assert.notEqual(b, a);
      assert.equal(registry.size, 1);
      await registry.close(1);
      assert.equal(registry.size, 0);
    } finally {
      await registry.closeAll();
    }
  });
});
