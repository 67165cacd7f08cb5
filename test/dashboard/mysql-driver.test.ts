import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection } from 'mysql2/promise';
import { freshMysql, mysqlConnection, type FreshMysqlDatabase } from '../support/mariadb.ts';
import { waitFor } from '../support/wait.ts';
import { mysqlDriver } from '../../src/dashboard/sql/mysql-driver.ts';
import { DataSourceError, type ConnectionSettings } from '../../src/dashboard/sql/driver.ts';
import { DEFAULT_DENIED_NETWORKS, networkPolicy } from '../../src/dashboard/sql/network.ts';
import { executeQuery } from '../../src/dashboard/sql/execute.ts';

const driver = mysqlDriver(networkPolicy(DEFAULT_DENIED_NETWORKS, undefined));
let db: FreshMysqlDatabase;
let admin: Connection;
const settings = (over: Partial<ConnectionSettings> = {}): ConnectionSettings => ({
  url: db.url,
  sslEnabled: false,
  maxConnections: 2,
  queryTimeoutSeconds: 30,
  readOnly: false,
  ...over,
});

async function running(fragment: string): Promise<number> {
  const [rows] = await admin.query(
    `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND = 'Execute' AND INFO LIKE ? AND ID <> CONNECTION_ID()`,
    [`%${fragment}%`],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

before(async () => {
  db = await freshMysql('dsqmy');
  admin = await mysqlConnection(db);
  await admin.query(`
    CREATE TABLE things (
      id INT PRIMARY KEY, big BIGINT UNSIGNED NOT NULL, price DECIMAL(10,2), name VARCHAR(20) NOT NULL, at TIMESTAMP(3) NULL,
      local DATETIME, day DATE, raw VARBINARY(8), note TEXT, ratio DOUBLE, flag BIT(8)
    );
    INSERT INTO things VALUES
      (1, 18446744073709551615, 12.30, 'first', '2024-05-06 07:08:09.123', '2024-05-06 07:08:09', '2024-05-06', X'00FF10', 'hello', 1.5, b'00000101'),
      (2, 1, NULL, 'second', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    CREATE VIEW thing_names AS SELECT id, name FROM things;
    CREATE TABLE other_stuff (x INT);
  `);
});

after(async () => {
  await admin?.end();
  await db?.drop();
});

describe('mysql driver (MariaDB)', () => {
  it('returns JSON-safe values and column descriptors', async () => {
    const pool = driver.open(settings());
    try {
      const r = await pool.run({ sql: 'SELECT * FROM things ORDER BY id', values: [], maxRows: 10 });
      assert.equal(r.rowCount, 2);
      const row = r.rows[0]!;
      assert.equal(row.big, '18446744073709551615');
      assert.equal(row.price, '12.30');
      assert.equal(row.at, '2024-05-06T07:08:09.123Z');
      assert.equal(row.local, '2024-05-06T07:08:09');
      assert.equal(row.day, '2024-05-06');
      assert.equal(row.raw, Buffer.from([0, 255, 16]).toString('base64'));
      assert.equal(row.note, 'hello');
      assert.equal(row.ratio, 1.5);
      assert.equal(row.flag, Buffer.from([5]).toString('base64'));
      const col = (n: string) => r.columns.find((c) => c.name === n);
      assert.deepEqual(col('id'), { name: 'id', type: 'INT', nullable: false });
      assert.deepEqual(col('big'), { name: 'big', type: 'BIGINT UNSIGNED', nullable: false });
      assert.deepEqual(col('price'), { name: 'price', type: 'DECIMAL', nullable: true, precision: 10, scale: 2 });
      assert.deepEqual(col('name'), { name: 'name', type: 'VARCHAR', nullable: false, length: 20 });
      assert.deepEqual(col('raw'), { name: 'raw', type: 'VARBINARY', nullable: true, length: 8 });
      assert.deepEqual(col('at'), { name: 'at', type: 'TIMESTAMP', nullable: true, precision: 3 });
      assert.equal(col('note')!.type, 'TEXT');
    } finally {
      await pool.close();
    }
  });

  it('stops reading at maxRows and says the result was truncated', async () => {
    const pool = driver.open(settings());
    try {
      const r = await pool.run({ sql: 'SELECT seq FROM seq_1_to_1000000', values: [], maxRows: 5 });
      assert.deepEqual(
        r.rows.map((x) => x.seq),
        ['1', '2', '3', '4', '5'],
      );
      assert.equal(r.truncated, true);
      await waitFor('the statement seq_1_to_1000000 to end', async () => (await running('seq_1_to_1000000')) === 0);
      const exact = await pool.run({ sql: 'SELECT seq FROM seq_1_to_5', values: [], maxRows: 5 });
      assert.equal(exact.truncated, false);
    } finally {
      await pool.close();
    }
  });

  it('binds values as a prepared statement, repeated names included', async () => {
    const pool = driver.open(settings());
    try {
      const r = await executeQuery(pool, {
        type: 'mysql',
        readOnly: false,
        query: 'SELECT name FROM things WHERE name = :n OR id = :id OR id = :id + 10',
        parameters: { n: "x' OR '1'='1", id: 2 },
        maxRows: 10,
      });
      assert.deepEqual(r.rows, [{ name: 'second' }]);
    } finally {
      await pool.close();
    }
  });

  it('the server refuses two statements even when the text check is bypassed', async () => {
    const pool = driver.open(settings());
    try {
      await assert.rejects(
        pool.run({ sql: 'DELETE FROM things; SELECT 1', values: [], maxRows: 10 }),
        (e: DataSourceError) => e.kind === 'query',
      );
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM things');
      assert.equal(Number((rows as { n: number }[])[0]!.n), 2);
    } finally {
      await pool.close();
    }
  });

  it('a read-only source refuses writes, DDL and temporary tables, and rolls back', async () => {
    const pool = driver.open(settings({ readOnly: true }));
    try {
      for (const sql of [
        'DELETE FROM things',
        'UPDATE things SET name = "x"',
        'CREATE TABLE t2 (a INT)',
        'CREATE TEMPORARY TABLE t3 (a INT)',
        'SELECT * FROM things FOR UPDATE',
      ]) {
        await assert.rejects(pool.run({ sql, values: [], maxRows: 10 }), DataSourceError, sql);
      }
      await assert.rejects(
        executeQuery(pool, { type: 'mysql', readOnly: true, query: 'DELETE FROM things', parameters: {}, maxRows: 10 }),
        /read-only/,
      );
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM things');
      assert.equal(Number((rows as { n: number }[])[0]!.n), 2);
      const [tables] = await admin.query(
        "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't2'",
      );
      assert.equal(Number((tables as { n: number }[])[0]!.n), 0);
    } finally {
      await pool.close();
    }
  });

  it('a read-only connection reused after a failed query is still in a read-only session', async () => {
    const pool = driver.open(settings({ readOnly: true, maxConnections: 1, queryTimeoutSeconds: 7 }));
    try {
      const first = await pool.run({ sql: 'SELECT CONNECTION_ID() AS id', values: [], maxRows: 1 });
      await assert.rejects(
        pool.run({ sql: 'SELECT * FROM no_such_table', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'query',
      );
      await assert.rejects(pool.run({ sql: 'DELETE FROM things', values: [], maxRows: 1 }), DataSourceError);
      const r = await pool.run({
        sql: "SELECT CONNECTION_ID() AS id, IF(@@tx_read_only, 'yes', 'no') AS ro, @@max_statement_time AS t",
        values: [],
        maxRows: 1,
      });
      assert.deepEqual(r.rows[0], { id: first.rows[0]!.id, ro: 'yes', t: 7 });
      const [rows] = await admin.query('SELECT COUNT(*) AS n FROM things');
      assert.equal(Number((rows as { n: number }[])[0]!.n), 2);
    } finally {
      await pool.close();
    }
  });

  it('hands no connection back dirty: variables, locks and settings are reset', async () => {
    const pool = driver.open(settings({ maxConnections: 1, queryTimeoutSeconds: 7 }));
    try {
      await pool.run({ sql: 'SET @leak = 42', values: [], maxRows: 1 });
      await pool.run({ sql: 'SET SESSION max_statement_time = 0', values: [], maxRows: 1 });
      await pool.run({ sql: "SELECT GET_LOCK('dsq_lock', 0)", values: [], maxRows: 1 });
      const r = await pool.run({
        sql: "SELECT @leak AS v, @@max_statement_time AS t, IS_USED_LOCK('dsq_lock') AS l, @@time_zone AS tz",
        values: [],
        maxRows: 1,
      });
      assert.deepEqual(r.rows[0], { v: null, t: 7, l: null, tz: '+00:00' });
    } finally {
      await pool.close();
    }
  });

  it('cancels a query in the database when the timeout passes', async () => {
    const pool = driver.open(settings({ queryTimeoutSeconds: 1 }));
    try {
      await assert.rejects(
        pool.run({ sql: 'SELECT SLEEP(30) AS timeout_probe', values: [], maxRows: 1 }),
        (e: DataSourceError) => e.kind === 'timeout' || e.kind === 'cancelled',
      );
      // The server sends the error before its thread leaves 'Execute' in the process list; a query not stopped would stay 30 s.
      await waitFor('the statement timeout_probe to end', async () => (await running('timeout_probe')) === 0);
    } finally {
      await pool.close();
    }
  });

  it('cancels a query in the database when the client goes away', async () => {
    const pool = driver.open(settings());
    try {
      const abort = new AbortController();
      const run = pool.run({ sql: 'SELECT SLEEP(30) AS abort_probe', values: [], maxRows: 1, signal: abort.signal });
      await waitFor('the statement abort_probe to run', async () => (await running('abort_probe')) === 1);
      abort.abort();
      await assert.rejects(run, (e: DataSourceError) => e.kind === 'cancelled');
      await waitFor('the statement abort_probe to end', async () => (await running('abort_probe')) === 0);
    } finally {
      await pool.close();
    }
  });

  it('tests a connection and says why one fails without the URL or password', async () => {
    await driver.test(settings());
    const nowhere = 'mysql://someone:s3cret-pw@127.0.0.1:1/nothing';
    await assert.rejects(
      driver.test(settings({ url: nowhere })),
      (e: DataSourceError) => e.kind === 'connect' && !e.message.includes('s3cret-pw') && !e.message.includes(nowhere),
    );
    const wrong = new URL(db.url);
    wrong.username = 'nobody_here';
    wrong.password = 'hunter2hunter2';
    await assert.rejects(
      driver.test(settings({ url: wrong.toString() })),
      (e: DataSourceError) => e.kind === 'connect' && /denied/i.test(e.message) && !e.message.includes('hunter2'),
    );
  });

  it('browses tables and views of the current database with a filter and columns', async () => {
    const pool = driver.open(settings());
    try {
      assert.deepEqual(await pool.schema({ columns: false }), [
        { schema: db.name, name: 'other_stuff', type: 'table' },
        { schema: db.name, name: 'thing_names', type: 'view' },
        { schema: db.name, name: 'things', type: 'table' },
      ]);
      const filtered = await pool.schema({ filter: 'thing', columns: true });
      assert.deepEqual(
        filtered.map((t) => t.name),
        ['thing_names', 'things'],
      );
      assert.deepEqual(
        filtered[1]!.columns!.find((c) => c.name === 'price'),
        { name: 'price', type: 'DECIMAL', nullable: true, precision: 10, scale: 2 },
      );
      assert.deepEqual(
        filtered[1]!.columns!.find((c) => c.name === 'name'),
        { name: 'name', type: 'VARCHAR', nullable: false, length: 20 },
      );
    } finally {
      await pool.close();
    }
  });
});
