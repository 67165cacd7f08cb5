import { after, describe, test } from 'node:test';
import pg from 'pg';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDatabaseUnavailable, openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { DirectoryInUseError } from '../../src/kit/dir-lock.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const tmp = tempDir();
const pgdb = await freshPostgres('kitdb');
after(async () => {
  await pgdb.drop();
  tmp.remove();
});

function migrationsDir(name: string, files: Record<string, string>): string {
  const dir = join(tmp.path, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, sql] of Object.entries(files)) writeFileSync(join(dir, f), sql);
  return dir + '/';
}

const backends: [string, (schema: string) => Promise<Database>][] = [
  ['pglite', (schema) => openDatabase({ dataDir: join(tmp.path, `pglite-${schema}`), schema })],
  ['postgres', (schema) => openDatabase({ url: pgdb.url, dataDir: '', schema, poolSize: 4 })],
];

for (const [kind, open] of backends) {
  describe(`database on ${kind}`, () => {
    test('parameterised queries, types and row counts', async () => {
      const db = await open('types');
      try {
        assert.equal(db.kind, kind);
        await db.exec('CREATE TABLE IF NOT EXISTS t (id int8 PRIMARY KEY, doc jsonb, at timestamptz); DELETE FROM t;');
        const ins = await db.query('INSERT INTO t VALUES ($1, $2, $3), ($4, $5, $6)', [
          1,
          { a: 1 },
          new Date('2026-01-01T00:00:00Z'),
          2,
          { b: 'x' },
          null,
        ]);
        assert.equal(ins.rowCount, 2);
        const r = await db.query<{ id: number; doc: unknown; at: Date | null }>(
          'SELECT id, doc, at FROM t WHERE id = $1',
          [1],
        );
        assert.deepEqual(r.rows[0], { id: 1, doc: { a: 1 }, at: new Date('2026-01-01T00:00:00Z') });
        const count = await db.query<{ n: number }>('SELECT count(*) AS n FROM t');
        assert.equal(count.rows[0]!.n, 2);
        // An injection attempt stays a value.
        const inj = await db.query('SELECT id FROM t WHERE doc->>$1 = $2', ["a' OR '1'='1", 'x']);
        assert.equal(inj.rows.length, 0);
        const upd = await db.query('UPDATE t SET at = now() WHERE id > $1', [0]);
        assert.equal(upd.rowCount, 2);
      } finally {
        await db.close();
      }
    });

    test('tables land in the service schema', async () => {
      const db = await open('schema_a');
      try {
        await db.exec('CREATE TABLE IF NOT EXISTS things (x int)');
        const r = await db.query<{ table_schema: string }>(
          "SELECT table_schema FROM information_schema.tables WHERE table_name = 'things'",
        );
        assert.deepEqual(
          r.rows.map((x) => x.table_schema),
          ['schema_a'],
        );
      } finally {
        await db.close();
      }
    });

    test('a transaction commits on success and rolls back on error', async () => {
      const db = await open('tx');
      try {
        await db.exec(
          'CREATE TABLE IF NOT EXISTS acc (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0)); DELETE FROM acc;',
        );
        await db.transaction(async (tx) => {
          await tx.query('INSERT INTO acc VALUES (1, 10), (2, 0)');
        });
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query('UPDATE acc SET balance = balance + 5 WHERE id = 2');
            await tx.query('UPDATE acc SET balance = balance - 50 WHERE id = 1');
          }),
          /check constraint/,
        );
        const r = await db.query<{ id: number; balance: number }>('SELECT id, balance FROM acc ORDER BY id');
        assert.deepEqual(r.rows, [
          { id: 1, balance: 10 },
          { id: 2, balance: 0 },
        ]);
      } finally {
        await db.close();
      }
    });

    test('migrations apply in order, once, and are recorded', async () => {
      const dir = migrationsDir(`m-${kind}`, {
        '001_create.sql': 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);',
        '002_seed.sql': "INSERT INTO notes (body) VALUES ('first'); ALTER TABLE notes ADD COLUMN tag text;",
        'README.md': 'not a migration',
      });
      const db = await open('migr');
      try {
        assert.deepEqual((await migrate(db, dir)).applied, ['001_create.sql', '002_seed.sql']);
        assert.deepEqual((await migrate(db, dir)).applied, []);
        const r = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
        assert.deepEqual(
          r.rows.map((x) => x.name),
          ['001_create.sql', '002_seed.sql'],
        );
        assert.equal((await db.query('SELECT * FROM notes')).rows.length, 1);
      } finally {
        await db.close();
      }
    });

    test('a failing migration leaves nothing behind and names itself', async () => {
      const dir = migrationsDir(`bad-${kind}`, {
        '001_ok.sql': 'CREATE TABLE ok_table (x int);',
        '002_bad.sql': 'CREATE TABLE half (x int); SELECT * FROM no_such_table;',
      });
      const db = await open('badmigr');
      try {
        await assert.rejects(migrate(db, dir), /migration badmigr\/002_bad.sql failed/);
        const r = await db.query(
          "SELECT 1 FROM information_schema.tables WHERE table_schema = 'badmigr' AND table_name IN ('ok_table', 'half')",
        );
        assert.equal(r.rows.length, 0);
      } finally {
        await db.close();
      }
    });
  });
}

test('two instances migrating one PostgreSQL database at once apply each migration once', async () => {
  const dir = migrationsDir('race', {
    '001_a.sql': 'CREATE TABLE race_a (x int); SELECT pg_sleep(0.2);',
    '002_b.sql': 'CREATE TABLE race_b (x int);',
  });
  const a = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'race' });
  const b = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'race' });
  try {
    const [ra, rb] = await Promise.all([migrate(a, dir), migrate(b, dir)]);
    assert.deepEqual([...ra.applied, ...rb.applied].sort(), ['001_a.sql', '002_b.sql']);
    assert.ok(ra.applied.length === 0 || rb.applied.length === 0, 'one instance applied everything, the other nothing');
  } finally {
    await a.close();
    await b.close();
  }
});

test('COPY on the database itself is a transaction of its own: committed when it resolves, all or nothing', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'copies', poolSize: 1 });
  const reader = new pg.Client({ connectionString: pgdb.url });
  await reader.connect();
  try {
    await db.exec('CREATE TABLE IF NOT EXISTS copied (id int PRIMARY KEY, name text NOT NULL); TRUNCATE copied;');
    const sql = 'COPY copied (id, name) FROM STDIN';
    assert.equal(await db.copyFrom!(sql, Buffer.from('1\tada\n2\tbob\n')), 2);
    // Seen at once from another session: the COPY was committed before it resolved.
    assert.deepEqual((await reader.query('SELECT id, name FROM copies.copied ORDER BY id')).rows, [
      { id: 1, name: 'ada' },
      { id: 2, name: 'bob' },
    ]);
    // A row refused by the unique index takes the whole COPY with it, and the one connection serves the next statement.
    await assert.rejects(
      db.copyFrom!(sql, Buffer.from('3\tcy\n1\tada again\n')),
      (e: unknown) => (e as { code?: string }).code === '23505',
    );
    assert.equal((await reader.query('SELECT count(*)::int AS n FROM copies.copied')).rows[0].n, 2);
    assert.equal(await db.copyFrom!(sql, Buffer.from('3\tcy\n')), 1);
    assert.equal((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM copied')).rows[0]!.n, 3);
  } finally {
    await reader.end();
    await db.close();
  }
});

test('a statement running past the timeout is cancelled by PostgreSQL, and migrations are exempt', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'timeouts', statementTimeoutMs: 200 });
  try {
    await assert.rejects(db.query('SELECT pg_sleep(2)'), /statement timeout/);
    assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1, 'the pool still works');
    const dir = migrationsDir('slow', { '001_slow.sql': 'SELECT pg_sleep(0.5); CREATE TABLE slow_done (x int);' });
    assert.deepEqual((await migrate(db, dir)).applied, ['001_slow.sql']);
  } finally {
    await db.close();
  }
});

test('an embedded data directory belongs to one process', async () => {
  const dataDir = join(tmp.path, 'locked');
  const first = await openDatabase({ dataDir, schema: 'svc', owner: 'svc server' });
  try {
    await assert.rejects(
      openDatabase({ dataDir, schema: 'svc' }),
      (e: unknown) => e instanceof DirectoryInUseError && /in use by process \d+/.test((e as Error).message),
    );
    // The holder keeps working after the refused attempt.
    assert.equal((await first.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1);
  } finally {
    await first.close();
  }
  const again = await openDatabase({ dataDir, schema: 'svc' });
  await again.close();
});

test('a lock left by a dead process is taken over', async () => {
  const dataDir = join(tmp.path, 'stale');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'platform.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, owner: 'gone' }));
  const db = await openDatabase({ dataDir, schema: 'svc' });
  await db.close();
});

test('a pooled connection the server drops while checked out neither crashes the process nor stays in the pool', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'dropped', poolSize: 2 });
  const admin = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'dropped_admin', poolSize: 1 });
  try {
    const failure = await db
      .transaction(async (tx) => {
        const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Terminated while idle inside the transaction: the 'error' arrives with no statement running.
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        while (db.poolStats().lost === 0) await new Promise((resolve) => setImmediate(resolve));
        return tx.query('SELECT 1').then(
          () => undefined,
          (err: unknown) => err,
        );
      })
      .then(
        (value) => value,
        (err: unknown) => err,
      );
    assert.ok(failure instanceof Error, 'the statement after the drop failed');
    assert.ok(
      isDatabaseUnavailable(failure),
      `recognised as the database being unavailable: ${(failure as Error).message}`,
    );
    assert.equal(
      (await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one,
      1,
      'the pool replaced the connection',
    );
    assert.equal(db.poolStats().waiting, 0);
  } finally {
    await db.close();
    await admin.close();
  }
});

test('idle pooled connections terminated by the server are replaced on the next query', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'idle_drop', poolSize: 3 });
  const admin = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'idle_drop_admin', poolSize: 1 });
  try {
    await Promise.all([1, 2, 3].map(() => db.query('SELECT pg_sleep(0.05)')));
    assert.equal(db.poolStats().total, 3);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep(0.05)%'",
    );
    while (db.poolStats().lost < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(db.poolStats().total, 0, 'the dead connections left the pool');
    assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1);
  } finally {
    await db.close();
    await admin.close();
  }
});

test('connection failures are told apart from faults in the statement', async () => {
  const db = await openDatabase({ url: pgdb.url, dataDir: '', schema: 'faults', poolSize: 1 });
  try {
    const syntax = await db.query('SELEC 1').catch((e: unknown) => e);
    assert.equal(isDatabaseUnavailable(syntax), false, "a syntax error is the statement's fault");
    await db.exec('CREATE TABLE IF NOT EXISTS u (id int PRIMARY KEY); INSERT INTO u VALUES (1) ON CONFLICT DO NOTHING');
    assert.equal(isDatabaseUnavailable(await db.query('INSERT INTO u VALUES (1)').catch((e: unknown) => e)), false);
    assert.equal(
      isDatabaseUnavailable(await db.query('SELECT pg_terminate_backend(pg_backend_pid())').catch((e: unknown) => e)),
      true,
    );
  } finally {
    await db.close();
  }
  const unreachable = await openDatabase({
    url: 'postgres://postgres@127.0.0.1:1/none',
    dataDir: '',
    schema: 'x',
  }).catch((e: unknown) => e);
  assert.equal(isDatabaseUnavailable(unreachable), true, 'a refused connection');
  assert.equal(isDatabaseUnavailable(new TypeError('x is not a function')), false);
  assert.equal(isDatabaseUnavailable(undefined), false);
});
