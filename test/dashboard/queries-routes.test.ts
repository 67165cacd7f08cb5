import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import type { Connection } from 'mysql2/promise';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshMysql, mysqlConnection, type FreshMysqlDatabase } from '../support/mariadb.ts';

let target: FreshMysqlDatabase;
let targetAdmin: Connection;
let s: DashboardServer;
let admin: SignedIn;
let editor: SignedIn;
let viewer: SignedIn;
let stranger: SignedIn;
let sourceId: number;

async function running(fragment: string): Promise<number> {
  const [rows] = await targetAdmin.query(
    `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Execute', 'Query') AND INFO LIKE ? AND ID <> CONNECTION_ID()`,
    [`%${fragment}%`],
  );
  return Number((rows as { n: number }[])[0]!.n);
}

before(async () => {
  target = await freshMysql('dsqqueries');
  targetAdmin = await mysqlConnection(target);
  await targetAdmin.query(`
    CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, price DECIMAL(8,2) NOT NULL, added DATETIME NOT NULL);
    INSERT INTO products VALUES (1, 'apple', 0.50, '2024-02-03 04:05:06'), (2, 'pear', 0.75, '2024-02-04 00:00:00'), (3, 'plum', 1.25, '2024-02-05 12:00:00');
  `);
  s = await startDashboard('dsqqueries');
  admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
  const r = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Shop', slug: 'shop', type: 'mysql', connectionUrl: target.url, queryTimeoutSeconds: 1 },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  sourceId = r.body.id;
});

after(async () => {
  await s?.close();
  await targetAdmin?.end();
  await target?.drop();
});

describe('queries on a MySQL (MariaDB) data source', () => {
  test('the data source query route answers MySQL column descriptors and values', async () => {
    const r = await s.request('POST', `/api/v1/datasources/${sourceId}/query`, {
      as: editor,
      body: { query: 'SELECT * FROM products WHERE price > @min ORDER BY id', parameters: { min: 0.6 } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.columns, [
      { name: 'id', type: 'INT', nullable: false },
      { name: 'name', type: 'VARCHAR', nullable: false, length: 50 },
      { name: 'price', type: 'DECIMAL', nullable: false, precision: 8, scale: 2 },
      { name: 'added', type: 'DATETIME', nullable: false, precision: 0 },
    ]);
    assert.deepEqual(r.body.rows, [
      { id: 2, name: 'pear', price: '0.75', added: '2024-02-04T00:00:00' },
      { id: 3, name: 'plum', price: '1.25', added: '2024-02-05T12:00:00' },
    ]);
  });

  test('POST /query answers column names (Document 1) for editors, never for viewers', async () => {
    const r = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'SELECT name FROM products WHERE id = :id', params: { id: 1 } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.columns, ['name']);
    assert.deepEqual(r.body.rows, [{ name: 'apple' }]);
    assert.equal(r.body.rowCount, 1);
    assert.equal(typeof r.body.executionTimeMs, 'number');
    const v = await s.request('POST', '/api/v1/query', {
      as: viewer,
      body: { dataSourceId: sourceId, query: 'SELECT 1' },
    });
    assert.equal(v.status, 403);
    for (const body of [
      { query: 'SELECT 1' },
      { dataSourceId: 'x', query: 'SELECT 1' },
      { dataSourceId: sourceId },
      { dataSourceId: sourceId, query: 'SELECT 1', params: [] },
      { dataSourceId: sourceId, query: 'SELECT 1', maxRows: 10001 },
    ]) {
      const bad = await s.request('POST', '/api/v1/query', { as: editor, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal(
      (await s.request('POST', '/api/v1/query', { as: editor, body: { dataSourceId: 999999, query: 'SELECT 1' } }))
        .status,
      404,
    );
  });

  test('SLEEP past the timeout is killed in the server: 408 and gone from the process list', async () => {
    const r = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'SELECT SLEEP(20) AS mysql_route_probe' },
    });
    assert.equal(r.status, 408);
    assert.equal(r.body.error.code, 'REQUEST_TIMEOUT');
    // MariaDB sends the error before the thread leaves the process list; a query not killed would stay there 20 s.
    for (let i = 0; i < 200 && (await running('mysql_route_probe')) > 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.equal(await running('mysql_route_probe'), 0);
  });

  test('a read-only MySQL source refuses writes before and inside the database', async () => {
    const multi = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'COMMIT; DELETE FROM products' },
    });
    assert.equal(multi.status, 400);
    const del = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'DELETE FROM products' },
    });
    assert.equal(del.status, 400);
    assert.match(del.body.error.message, /read-only/);
    const [rows] = await targetAdmin.query('SELECT COUNT(*) AS n FROM products');
    assert.equal(Number((rows as { n: number }[])[0]!.n), 3);
  });

  test('a read-only source refuses what an executable comment (/*! */, /*M! */) would run; plain comments stay comments', async () => {
    const file = (name: string) => `/tmp/dashboard-${target.name}-${name}`;
    const written = async (path: string) => {
      const [rows] = await targetAdmin.query('SELECT LOAD_FILE(?) IS NOT NULL AS there', [path]);
      return Number((rows as { there: number }[])[0]!.there) === 1;
    };
    try {
      // The server writes files where the test looks (a write it is allowed, then seen), so "not written" means something.
      await targetAdmin.query(`SELECT 1 INTO OUTFILE '${file('control')}'`);
      assert.equal(await written(file('control')), true);
      for (const [name, opening] of [
        ['plain', '/*!'],
        ['versioned', '/*!50110'],
        ['mariadb', '/*M!'],
        ['mariadb-versioned', '/*M!100101'],
      ] as const) {
        for (const route of ['/api/v1/query', `/api/v1/datasources/${sourceId}/query`]) {
          const query = `SELECT 1 AS a ${opening} INTO OUTFILE '${file(`${name}-${route.length}`)}' */`;
          const r = await s.request('POST', route, {
            as: editor,
            body: route === '/api/v1/query' ? { dataSourceId: sourceId, query } : { query },
          });
          assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
          assert.deepEqual(r.body.error, {
            code: 'VALIDATION_ERROR',
            message:
              'query: this data source is read-only and only accepts reads (SELECT, WITH, VALUES, SHOW, EXPLAIN); SELECT ... INTO writes a table or file',
          });
          assert.equal(await written(file(`${name}-${route.length}`)), false, `${query} wrote the file`);
        }
      }
      const plain = await s.request('POST', '/api/v1/query', {
        as: editor,
        body: { dataSourceId: sourceId, query: `SELECT 1 AS a /* INTO OUTFILE '${file('comment')}' */ -- INTO\n` },
      });
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.deepEqual(plain.body.rows, [{ a: 1 }]);
      assert.equal(await written(file('comment')), false);
      // What an executable comment holds still runs when it is a read.
      const read = await s.request('POST', '/api/v1/query', {
        as: editor,
        body: { dataSourceId: sourceId, query: 'SELECT 1 /*!50100 + 1 */ /*M! + 1 */ AS a' },
      });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(read.body.rows, [{ a: 3 }]);
    } finally {
      for (const f of readdirSync('/tmp').filter((n) => n.startsWith(`dashboard-${target.name}-`)))
        rmSync(`/tmp/${f}`, { force: true });
    }
  });

  test('@name is a parameter: missing is 400 naming it; a user variable is written quoted', async () => {
    for (const route of ['/api/v1/query', `/api/v1/datasources/${sourceId}/query`]) {
      const query = 'SELECT name FROM products WHERE id = @wanted';
      const missing = await s.request('POST', route, {
        as: editor,
        body: route === '/api/v1/query' ? { dataSourceId: sourceId, query } : { query },
      });
      assert.equal(missing.status, 400, JSON.stringify(missing.body));
      assert.deepEqual(missing.body.error, {
        code: 'VALIDATION_ERROR',
        message: 'parameters: missing "wanted" used in the query; a MySQL user variable is written quoted: @`wanted`',
      });
    }
    const given = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'SELECT name FROM products WHERE id = @wanted', params: { wanted: 2 } },
    });
    assert.deepEqual(given.body.rows, [{ name: 'pear' }]);
    const variable = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: "SELECT @`n` := 5 AS v, @'n' + 1 AS w, @@sql_mode IS NOT NULL AS sys" },
    });
    assert.equal(variable.status, 200, JSON.stringify(variable.body));
    assert.deepEqual(variable.body.rows, [{ v: 5, w: 6, sys: 1 }]);
  });

  test('schema of a MySQL source defaults to its current database', async () => {
    const r = await s.request('GET', `/api/v1/datasources/${sourceId}/schema?columns=true`, { as: editor });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.tables.map((t: { schema: string; name: string }) => [t.schema, t.name]),
      [[target.name, 'products']],
    );
    assert.equal(r.body.tables[0].columns.length, 4);
  });
});

describe('saved queries', () => {
  let savedId: number;

  test('an editor saves a query; create answers the saved query', async () => {
    const r = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: {
        name: 'Cheaper than',
        description: 'products under a price',
        dataSourceId: sourceId,
        query: 'SELECT name FROM products WHERE price < :max ORDER BY id',
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), [
      'createdAt',
      'createdBy',
      'createdByName',
      'dataSourceId',
      'description',
      'id',
      'name',
      'query',
      'updatedAt',
      'updatedBy',
      'updatedByName',
    ]);
    assert.equal(r.body.createdBy, editor.userId);
    savedId = r.body.id;
  });

  test('a viewer lists and runs saved queries with parameters', async () => {
    const list = await s.request('GET', '/api/v1/queries', { as: viewer });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((q: { id: number }) => q.id),
      [savedId],
    );
    assert.equal(list.body.next, null);
    const run = await s.request('POST', `/api/v1/queries/${savedId}/run`, { as: viewer, body: { params: { max: 1 } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(run.body.columns, ['name']);
    assert.deepEqual(run.body.rows, [{ name: 'apple' }, { name: 'pear' }]);
    assert.equal(run.body.rowCount, 2);
  });

  test('running with a missing, unused or wrong parameter is 400 naming it', async () => {
    const missing = await s.request('POST', `/api/v1/queries/${savedId}/run`, { as: viewer, body: {} });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /missing "max"/);
    const none = await s.request('POST', `/api/v1/queries/${savedId}/run`, { as: viewer });
    assert.equal(none.status, 400);
    const unused = await s.request('POST', `/api/v1/queries/${savedId}/run`, {
      as: viewer,
      body: { params: { max: 1, min: 0 } },
    });
    assert.match(unused.body.error.message, /"min" not used/);
    const injected = await s.request('POST', `/api/v1/queries/${savedId}/run`, {
      as: viewer,
      body: { params: { max: '1 OR 1=1' } },
    });
    assert.equal(injected.status, 200);
    assert.ok(injected.body.rowCount <= 3);
    for (const body of [
      { params: { max: [1] } },
      { params: 'x' },
      { maxRows: 10001, params: { max: 1 } },
      { other: 1 },
    ]) {
      const bad = await s.request('POST', `/api/v1/queries/${savedId}/run`, { as: viewer, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
    }
  });

  test('every field of a saved query wrong in turn is 400; a statement list is refused at save time', async () => {
    const good = { name: 'Q', dataSourceId: sourceId, query: 'SELECT 1' };
    const cases: Record<string, unknown>[] = [
      { name: '' },
      { name: 'n'.repeat(201) },
      { description: 'd'.repeat(2001) },
      { dataSourceId: 0 },
      { dataSourceId: 'one' },
      { query: '' },
      { query: 'SELECT 1; SELECT 2' },
      { query: 'BEGIN' },
      { extra: 1 },
    ];
    for (const change of cases) {
      const r = await s.request('POST', '/api/v1/queries', { as: editor, body: { ...good, ...change } });
      assert.equal(r.status, 400, JSON.stringify(change));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
    // Read in the source's dialect: for MySQL a ; after # or inside backticks does not end the statement.
    const mysqlText = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { ...good, query: 'SELECT `a;b` FROM products # last; really\n' },
    });
    assert.equal(mysqlText.status, 201, JSON.stringify(mysqlText.body));
    for (const k of ['name', 'dataSourceId', 'query']) {
      const body: Record<string, unknown> = { ...good };
      delete body[k];
      assert.equal((await s.request('POST', '/api/v1/queries', { as: editor, body })).status, 400, k);
    }
  });

  test('editors change and delete saved queries; viewers may not', async () => {
    const r = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'Temp', dataSourceId: sourceId, query: 'SELECT 1 AS one' },
    });
    const id = r.body.id;
    assert.equal((await s.request('PUT', `/api/v1/queries/${id}`, { as: viewer, body: { name: 'X' } })).status, 403);
    assert.equal((await s.request('DELETE', `/api/v1/queries/${id}`, { as: viewer })).status, 403);
    assert.equal(
      (
        await s.request('POST', '/api/v1/queries', {
          as: viewer,
          body: { name: 'V', dataSourceId: sourceId, query: 'SELECT 1' },
        })
      ).status,
      403,
    );
    const put = await s.request('PUT', `/api/v1/queries/${id}`, {
      as: editor,
      body: { name: 'Renamed', query: 'SELECT 2 AS two', description: null },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.name, 'Renamed');
    assert.equal(put.body.query, 'SELECT 2 AS two');
    const run = await s.request('POST', `/api/v1/queries/${id}/run`, { as: viewer, body: {} });
    assert.deepEqual(run.body.rows, [{ two: 2 }]);
    assert.equal((await s.request('PUT', `/api/v1/queries/${id}`, { as: editor, body: {} })).status, 400);
    assert.equal(
      (
        await s.request('PUT', `/api/v1/queries/${id}`, {
          as: editor,
          body: { query: 'SELECT 1; DROP TABLE products' },
        })
      ).status,
      400,
    );
    assert.equal((await s.request('DELETE', `/api/v1/queries/${id}`, { as: editor })).status, 204);
    assert.equal((await s.request('POST', `/api/v1/queries/${id}/run`, { as: viewer, body: {} })).status, 404);
  });

  test('the list pages with limit and an opaque cursor', async () => {
    const ids = (await s.request('GET', '/api/v1/queries?limit=100', { as: viewer })).body.items.map(
      (q: { id: number }) => q.id,
    ) as number[];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await s.request('POST', '/api/v1/queries', {
            as: editor,
            body: { name: `P${i}`, dataSourceId: sourceId, query: 'SELECT 1' },
          })
        ).body.id,
      );
    const first = await s.request('GET', '/api/v1/queries?limit=2', { as: viewer });
    assert.deepEqual(
      first.body.items.map((q: { id: number }) => q.id),
      ids.slice(0, 2),
    );
    const second = await s.request('GET', `/api/v1/queries?limit=2&cursor=${first.body.next}`, { as: viewer });
    assert.deepEqual(
      second.body.items.map((q: { id: number }) => q.id),
      ids.slice(2, 4),
    );
    const rest = await s.request('GET', `/api/v1/queries?limit=100&cursor=${second.body.next}`, { as: viewer });
    assert.deepEqual(
      rest.body.items.map((q: { id: number }) => q.id),
      ids.slice(4),
    );
    assert.equal(rest.body.next, null);
    for (const q of ['limit=0', 'limit=101', 'cursor=abc', 'dataSourceId=x'])
      assert.equal((await s.request('GET', `/api/v1/queries?${q}`, { as: viewer })).status, 400, q);
  });

  test("another tenant's saved query is 404 on every route, and its data source cannot be named", async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v1/queries/${savedId}`],
      ['PUT', `/api/v1/queries/${savedId}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/queries/${savedId}`],
      ['POST', `/api/v1/queries/${savedId}/run`, { params: { max: 1 } }],
    ];
    for (const [method, path, body] of routes) {
      const r = await s.request(method, path, { as: stranger, body });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.error.code, 'NOT_FOUND');
    }
    const list = await s.request('GET', '/api/v1/queries', { as: stranger });
    assert.deepEqual(list.body.items, []);
    const mine = await s.request('POST', '/api/v1/datasources', {
      as: stranger,
      body: { name: 'G', slug: 'g', type: 'mysql', connectionUrl: target.url },
    });
    const moved = await s.request('PUT', `/api/v1/queries/${savedId}`, {
      as: editor,
      body: { dataSourceId: mine.body.id },
    });
    assert.equal(moved.status, 404);
  });
});
