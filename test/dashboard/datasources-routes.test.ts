import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

/** The data source's own database: a different database from the service's, with a password in its URL to look for. */
let target: FreshDatabase;
let targetAdmin: pg.Client;
let s: DashboardServer;
let owner: SignedIn;
let admin: SignedIn;
let editor: SignedIn;
let viewer: SignedIn;
let stranger: SignedIn;
const PASSWORD = 'pw-Secret-4711';
let urlWithPassword: string;

async function activeLike(fragment: string): Promise<number> {
  const r = await targetAdmin.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
    [`%${fragment}%`],
  );
  return r.rows[0].n;
}

before(async () => {
  target = await freshPostgres('dsqtarget');
  targetAdmin = new pg.Client({ connectionString: target.url });
  await targetAdmin.connect();
  await targetAdmin.query(`
    CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, total numeric(12,2), placed_at timestamptz);
    INSERT INTO orders SELECT g, 'customer ' || g, g * 1.5, '2024-01-01T00:00:00Z'::timestamptz + g * interval '1 hour' FROM generate_series(1, 20) g;
    CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 10;
  `);
  // Trust authentication ignores the password, so it can stand in any URL and must never come back.
  const u = new URL(target.url);
  u.username = 'postgres';
  u.password = PASSWORD;
  urlWithPassword = u.toString();
  process.env.DASHBOARD_DS_ROUTES_TARGET = urlWithPassword;
  s = await startDashboard('dsqroutes');
  owner = await s.signIn({ tenant: 'acme', role: 'owner' });
  admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  editor = await s.signIn({ tenant: 'acme', role: 'editor' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
});

after(async () => {
  delete process.env.DASHBOARD_DS_ROUTES_TARGET;
  await s?.close();
  await targetAdmin?.end();
  await target?.drop();
});

let counter = 0;
async function createSource(extra: Record<string, unknown> = {}, as: SignedIn = admin) {
  const r = await s.request('POST', '/api/v1/datasources', {
    as,
    body: { name: 'Warehouse', slug: `wh-${++counter}`, type: 'postgres', connectionUrl: urlWithPassword, ...extra },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as { id: number; slug: string };
}

describe('data source routes', () => {
  test('providers are listed without authentication with their real capabilities', async () => {
    const r = await s.request('GET', '/api/v1/datasources/providers');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.providers.map((p: { name: string }) => p.name),
      ['postgres', 'mysql'],
    );
    assert.equal(r.body.providers[0].capabilities.parameterStyle, 'positional_dollar');
    assert.equal(r.body.providers[1].capabilities.parameterStyle, 'positional_question');
    for (const p of r.body.providers) assert.deepEqual(p.capabilities.supportsNamedParams, true);
  });

  test("create answers the document's fields; the URL is sealed at rest and never returned", async () => {
    const r = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Sales DB', slug: 'sales-db', type: 'postgres', connectionUrl: urlWithPassword, maxConnections: 3 },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['active', 'createdAt', 'id', 'name', 'slug', 'type']);
    const got = await s.request('GET', `/api/v1/datasources/${r.body.id}`, { as: viewer });
    assert.equal(got.status, 200);
    assert.equal(got.body.connectionUrlEnv, null);
    assert.equal(got.body.hasConnectionUrl, true);
    assert.equal(got.body.maxConnections, 3);
    assert.equal(got.body.queryTimeoutSeconds, 30);
    assert.equal(got.body.readOnly, true);
    assert.equal(got.body.sslEnabled, false);
    assert.equal(got.body.lastConnectedAt, null);
    const list = await s.request('GET', '/api/v1/datasources', { as: viewer });
    assert.equal(list.status, 200);
    assert.equal(list.body.total, list.body.dataSources.length);
    const item = list.body.dataSources.find((d: { id: number }) => d.id === r.body.id);
    assert.equal('connectionUrlEnv' in item, false);
    assert.equal('connectionUrl' in item, false);
    const stored = await s.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: viewer.headers });
    for (const text of [JSON.stringify(got.body), stored.body]) {
      assert.equal(text.includes(PASSWORD), false);
      assert.equal(text.includes('127.0.0.1:5432'), false);
    }
    const direct = new pg.Client({ connectionString: s.database.url });
    await direct.connect();
    try {
      const row = await direct.query('SELECT connection_url_sealed AS s FROM dashboard.data_sources WHERE id = $1', [
        r.body.id,
      ]);
      assert.match(row.rows[0].s, /^v1\./);
      assert.equal(row.rows[0].s.includes(PASSWORD), false);
    } finally {
      await direct.end();
    }
  });

  test('list filters by active and type', async () => {
    const off = await createSource({ active: false });
    const inactive = await s.request('GET', '/api/v1/datasources?active=false', { as: viewer });
    assert.ok(inactive.body.dataSources.every((d: { active: boolean }) => d.active === false));
    assert.ok(inactive.body.dataSources.some((d: { id: number }) => d.id === off.id));
    const mysql = await s.request('GET', '/api/v1/datasources?type=mysql', { as: viewer });
    assert.deepEqual(mysql.body, { dataSources: [], total: 0 });
    assert.equal((await s.request('GET', '/api/v1/datasources?type=oracle', { as: viewer })).status, 400);
    assert.equal((await s.request('GET', '/api/v1/datasources?active=maybe', { as: viewer })).status, 400);
  });

  test('every field of a create wrong in turn is a 400 VALIDATION_ERROR', async () => {
    const good = { name: 'X', slug: 'x-good', type: 'postgres', connectionUrl: urlWithPassword };
    const cases: [string, Record<string, unknown>][] = [
      ['name empty', { name: '' }],
      ['name blank', { name: '   ' }],
      ['name too long', { name: 'n'.repeat(201) }],
      ['name an object', { name: { a: 1 } }],
      ['slug with spaces', { slug: 'Bad Slug' }],
      ['slug upper case', { slug: 'ABC' }],
      ['type unknown', { type: 'oracle' }],
      ['connectionUrl not a URL', { connectionUrl: 'nonsense' }],
      ['connectionUrl of another type', { connectionUrl: 'mysql://u:p@127.0.0.1/db' }],
      ['connectionUrl http', { connectionUrl: 'http://127.0.0.1:5432/db' }],
      ['connectionUrl empty', { connectionUrl: '' }],
      ['connectionUrl and connectionUrlEnv', { connectionUrlEnv: 'DASHBOARD_DS_ROUTES_TARGET' }],
      ['connectionUrlEnv without the prefix', { connectionUrl: undefined, connectionUrlEnv: 'DASHBOARD_JWT_SECRET' }],
      ['connectionUrlEnv the prefix alone', { connectionUrl: undefined, connectionUrlEnv: 'DASHBOARD_DS_' }],
      ['connectionUrlEnv unset', { connectionUrl: undefined, connectionUrlEnv: 'DASHBOARD_DS_NOT_SET_ANYWHERE' }],
      ['connectionUrlEnv lower case', { connectionUrl: undefined, connectionUrlEnv: 'dashboard_ds_x' }],
      ['neither URL field', { connectionUrl: undefined }],
      ['maxConnections 0', { maxConnections: 0 }],
      ['maxConnections 101', { maxConnections: 101 }],
      ['maxConnections fractional', { maxConnections: 1.5 }],
      ['queryTimeoutSeconds 0', { queryTimeoutSeconds: 0 }],
      ['queryTimeoutSeconds 3601', { queryTimeoutSeconds: 3601 }],
      ['readOnly a string', { readOnly: 'yes' }],
      ['sslEnabled a word', { sslEnabled: 'maybe' }],
      ['active a word', { active: 'sometimes' }],
      ['unknown field', { color: 'red' }],
    ];
    for (const [label, change] of cases) {
      const body: Record<string, unknown> = { ...good, ...change };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const r = await s.request('POST', '/api/v1/datasources', { as: admin, body });
      assert.equal(r.status, 400, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', label);
      assert.equal(JSON.stringify(r.body).includes(PASSWORD), false, label);
    }
    for (const missing of ['name', 'slug', 'type']) {
      const body: Record<string, unknown> = { ...good };
      delete body[missing];
      const r = await s.request('POST', '/api/v1/datasources', { as: admin, body });
      assert.equal(r.status, 400, missing);
    }
    assert.equal((await s.request('POST', '/api/v1/datasources', { as: admin, body: 'not json' })).status, 400);
  });

  test('a duplicate slug is 409 CONFLICT within a tenant, free in another', async () => {
    const a = await createSource();
    const dup = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Y', slug: a.slug, type: 'postgres', connectionUrl: urlWithPassword },
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'CONFLICT');
    const other = await s.request('POST', '/api/v1/datasources', {
      as: stranger,
      body: { name: 'Y', slug: a.slug, type: 'postgres', connectionUrl: urlWithPassword },
    });
    assert.equal(other.status, 201);
  });

  test('a source may name an environment variable with the prefix; get-one returns the name', async () => {
    const r = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Env', slug: 'env-src', type: 'postgres', connectionUrlEnv: 'DASHBOARD_DS_ROUTES_TARGET' },
    });
    assert.equal(r.status, 201);
    const got = await s.request('GET', `/api/v1/datasources/${r.body.id}`, { as: viewer });
    assert.equal(got.body.connectionUrlEnv, 'DASHBOARD_DS_ROUTES_TARGET');
    assert.equal(got.body.hasConnectionUrl, false);
    const q = await s.request('POST', `/api/v1/datasources/${r.body.id}/query`, {
      as: editor,
      body: { query: 'SELECT count(*) AS n FROM orders' },
    });
    assert.equal(q.status, 200);
    assert.deepEqual(q.body.rows, [{ n: '20' }]);
  });

  test('update changes only the given fields, checks them, and can switch between URL and environment variable', async () => {
    const a = await createSource();
    const r = await s.request('PUT', `/api/v1/datasources/${a.id}`, {
      as: admin,
      body: { name: 'Renamed', queryTimeoutSeconds: 5 },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.name, 'Renamed');
    assert.equal(r.body.queryTimeoutSeconds, 5);
    assert.equal(r.body.slug, a.slug);
    assert.equal(r.body.maxConnections, 10);
    const env = await s.request('PUT', `/api/v1/datasources/${a.id}`, {
      as: admin,
      body: { connectionUrlEnv: 'DASHBOARD_DS_ROUTES_TARGET' },
    });
    assert.equal(env.body.connectionUrlEnv, 'DASHBOARD_DS_ROUTES_TARGET');
    assert.equal(env.body.hasConnectionUrl, false);
    const back = await s.request('PUT', `/api/v1/datasources/${a.id}`, {
      as: admin,
      body: { connectionUrl: urlWithPassword },
    });
    assert.equal(back.body.connectionUrlEnv, null);
    assert.equal(back.body.hasConnectionUrl, true);
    for (const body of [
      {},
      { type: 'mysql' },
      { maxConnections: 0 },
      { connectionUrl: 'mysql://x@y/z' },
      { connectionUrlEnv: 'PATH' },
      { active: 'no' },
      { id: 5 },
    ]) {
      const bad = await s.request('PUT', `/api/v1/datasources/${a.id}`, { as: admin, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    }
    const mysql = await s.request('PUT', `/api/v1/datasources/${a.id}`, {
      as: admin,
      body: { type: 'mysql', connectionUrl: 'mysql://root@127.0.0.1:3306/' },
    });
    assert.equal(mysql.status, 200);
    assert.equal(mysql.body.type, 'mysql');
    const inactive = await s.request('PUT', `/api/v1/datasources/${a.id}`, { as: admin, body: { active: false } });
    assert.equal(inactive.body.active, false);
    const q = await s.request('POST', `/api/v1/datasources/${a.id}/query`, { as: editor, body: { query: 'SELECT 1' } });
    assert.equal(q.status, 400);
    assert.match(q.body.error.message, /inactive/);
  });

  test('test opens a fresh connection, updates lastConnectedAt, and explains a failure without the URL', async () => {
    const a = await createSource();
    const ok = await s.request('POST', `/api/v1/datasources/${a.id}/test`, { as: admin });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.success, true);
    assert.equal(typeof ok.body.durationMs, 'number');
    assert.deepEqual(Object.keys(ok.body).sort(), ['durationMs', 'success']);
    const got = await s.request('GET', `/api/v1/datasources/${a.id}`, { as: viewer });
    assert.ok(Date.parse(got.body.lastConnectedAt) > Date.now() - 60_000);

    const nowhere = `postgres://someone:${PASSWORD}@127.0.0.1:1/nothing`;
    const b = await createSource({ connectionUrl: nowhere });
    const failed = await s.request('POST', `/api/v1/datasources/${b.id}/test`, { as: admin });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.success, false);
    assert.match(failed.body.error, /ECONNREFUSED/);
    assert.equal(failed.body.error.includes(PASSWORD), false);
    assert.equal(failed.body.error.includes(nowhere), false);
    const stillNever = await s.request('GET', `/api/v1/datasources/${b.id}`, { as: viewer });
    assert.equal(stillNever.body.lastConnectedAt, null);
    const q = await s.request('POST', `/api/v1/datasources/${b.id}/query`, { as: editor, body: { query: 'SELECT 1' } });
    assert.equal(q.status, 503);
    assert.equal(q.body.error.code, 'UNAVAILABLE');
    assert.equal(JSON.stringify(q.body).includes(PASSWORD), false);

    const metadata = await createSource({ connectionUrl: 'postgres://u:p@169.254.169.254:5432/db' });
    const refused = await s.request('POST', `/api/v1/datasources/${metadata.id}/test`, { as: admin });
    assert.equal(refused.body.success, false);
    assert.match(refused.body.error, /network data sources may not reach/);
  });

  test('a query answers column descriptors, JSON-safe rows, rowCount, executionTimeMs and truncated', async () => {
    const a = await createSource();
    const r = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: {
        query: 'SELECT id, customer, total, placed_at FROM orders WHERE id <= :last ORDER BY id',
        parameters: { last: 3 },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.columns, [
      { name: 'id', type: 'integer', nullable: false },
      { name: 'customer', type: 'text', nullable: false },
      { name: 'total', type: 'numeric', nullable: true, precision: 12, scale: 2 },
      { name: 'placed_at', type: 'timestamp with time zone', nullable: true },
    ]);
    assert.deepEqual(r.body.rows[0], {
      id: 1,
      customer: 'customer 1',
      total: '1.50',
      placed_at: '2024-01-01T01:00:00Z',
    });
    assert.equal(r.body.rowCount, 3);
    assert.equal(r.body.truncated, false);
    assert.equal(typeof r.body.executionTimeMs, 'number');
    const capped = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'SELECT id FROM orders ORDER BY id', maxRows: 7 },
    });
    assert.equal(capped.body.rowCount, 7);
    assert.equal(capped.body.truncated, true);
    const big = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'SELECT g FROM generate_series(1, 20000) g' },
    });
    assert.equal(big.body.rowCount, 1000);
    assert.equal(big.body.truncated, true);
    const max = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'SELECT g FROM generate_series(1, 20000) g', maxRows: 10000 },
    });
    assert.equal(max.body.rowCount, 10000);
  });

  test('bad query requests are 400 VALIDATION_ERROR naming what is wrong, and nothing runs', async () => {
    const a = await createSource();
    const ask = (body: unknown) => s.request('POST', `/api/v1/datasources/${a.id}/query`, { as: editor, body });
    const cases: [unknown, RegExp][] = [
      [{ query: 'SELECT 1', maxRows: 10001 }, /maxRows/],
      [{ query: 'SELECT 1', maxRows: 0 }, /maxRows/],
      [{ query: 'SELECT 1', maxRows: 'many' }, /maxRows/],
      [{}, /query/],
      [{ query: '' }, /query/],
      [{ query: 42 }, /query/],
      [{ query: 'SELECT 1', parameters: 'x' }, /parameters/],
      [{ query: 'SELECT 1', extra: true }, /extra|additional/i],
      [{ query: 'SELECT 1; SELECT 2' }, /one statement/],
      [{ query: 'COMMIT; DELETE FROM orders' }, /one statement/],
      [{ query: 'DELETE FROM orders' }, /read-only/],
      [{ query: "INSERT INTO orders VALUES (99, 'x', 1, now())" }, /read-only/],
      [{ query: 'UPDATE orders SET total = 0' }, /read-only/],
      [{ query: 'WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d' }, /read-only.*DELETE/],
      [{ query: 'SELECT * INTO stolen FROM orders' }, /INTO/],
      [{ query: 'SELECT * FROM orders FOR UPDATE' }, /read-only/],
      [{ query: 'SELECT :a, :b', parameters: { a: 1 } }, /missing "b"/],
      [{ query: 'SELECT * FROM orders WHERE id = @wanted' }, /^parameters: missing "wanted" used in the query; /],
      [{ query: 'SELECT :a', parameters: { a: 1, zz: 2 } }, /"zz" not used/],
      [{ query: "SELECT ':a' -- :b", parameters: { a: 1 } }, /"a" not used/],
      [{ query: 'SELECT $1' }, /positional/],
      [{ query: 'SELECT :a', parameters: { a: { nested: true } } }, /parameters\.a/],
      [{ query: 'SELECT nonsense FROM nowhere' }, /refused the query: relation "nowhere" does not exist/],
    ];
    for (const [body, why] of cases) {
      const r = await ask(body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, why, JSON.stringify(body));
    }
    const count = await targetAdmin.query('SELECT count(*)::int AS n FROM orders');
    assert.equal(count.rows[0].n, 20);
    assert.equal((await targetAdmin.query(`SELECT to_regclass('public.stolen') AS t`)).rows[0].t, null);
  });

  test('the lexer keeps literals, comments, dollar quotes and casts intact through the route', async () => {
    const a = await createSource();
    const r = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: {
        query:
          "SELECT ':x' AS lit, $q$ :y $q$ AS dollar, :v::int + 1 AS cast_sum, :v AS again, E'\\' :z' AS esc /* :w */ -- :u",
        parameters: { v: '41' },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // One name is one $1, whose type PostgreSQL infers from its first use (the cast).
    assert.deepEqual(r.body.rows, [{ lit: ':x', dollar: ' :y ', cast_sum: 42, again: 41, esc: "' :z" }]);
  });

  test('a writable source accepts writes', async () => {
    const a = await createSource({ readOnly: false });
    const r = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'INSERT INTO orders VALUES (:id, :c, 1, NULL) RETURNING id', parameters: { id: 100, c: 'new' } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.rows, [{ id: 100 }]);
    await targetAdmin.query('DELETE FROM orders WHERE id = 100');
  });

  test('pg_sleep past the timeout is cancelled in the database: 408 and gone from pg_stat_activity', async () => {
    const a = await createSource();
    assert.equal(
      (await s.request('POST', `/api/v1/datasources/${a.id}/query`, { as: editor, body: { query: 'SELECT 1' } }))
        .status,
      200,
    );
    // A new timeout is a connection setting: the open pool (30 s) is closed and the next query gets a new one.
    assert.equal(
      (await s.request('PUT', `/api/v1/datasources/${a.id}`, { as: admin, body: { queryTimeoutSeconds: 1 } })).status,
      200,
    );
    const r = await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'SELECT pg_sleep(20) AS route_timeout_probe' },
    });
    assert.equal(r.status, 408);
    assert.equal(r.body.error.code, 'REQUEST_TIMEOUT');
    assert.equal(await activeLike('route_timeout_probe'), 0);
  });

  test('a client that goes away gets its query cancelled in the database', async () => {
    const a = await createSource();
    const abort = new AbortController();
    const pending = fetch(`${s.url}/api/v1/datasources/${a.id}/query`, {
      method: 'POST',
      headers: { ...editor.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT pg_sleep(20) AS route_abort_probe' }),
      signal: abort.signal,
    }).catch(() => undefined);
    for (let i = 0; i < 200 && (await activeLike('route_abort_probe')) === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.equal(await activeLike('route_abort_probe'), 1);
    abort.abort();
    await pending;
    for (let i = 0; i < 200 && (await activeLike('route_abort_probe')) > 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.equal(await activeLike('route_abort_probe'), 0);
  });

  test('schema lists tables and views, filters, and gives columns when asked', async () => {
    const a = await createSource();
    const r = await s.request('GET', `/api/v1/datasources/${a.id}/schema`, { as: editor });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.tables, [
      { schema: 'public', name: 'big_orders', type: 'view' },
      { schema: 'public', name: 'orders', type: 'table' },
    ]);
    const cols = await s.request('GET', `/api/v1/datasources/${a.id}/schema?columns=true&filter=big*`, { as: editor });
    assert.equal(cols.body.tables.length, 1);
    assert.deepEqual(cols.body.tables[0].columns[0], { name: 'id', type: 'integer', nullable: true });
    for (const q of ['columns=perhaps', 'schema=', 'other=1']) {
      const bad = await s.request('GET', `/api/v1/datasources/${a.id}/schema?${q}`, { as: editor });
      assert.equal(bad.status, 400, q);
    }
  });

  test('delete closes the pool and removes the source with its saved queries', async () => {
    const a = await createSource();
    assert.equal(
      (await s.request('POST', `/api/v1/datasources/${a.id}/query`, { as: editor, body: { query: 'SELECT 1 AS one' } }))
        .status,
      200,
    );
    const pooled = async () =>
      (
        await targetAdmin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
          `platform-dashboard ds:${a.id}`,
        ])
      ).rows[0].n as number;
    assert.equal(await pooled(), 1);
    const saved = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'Q', dataSourceId: a.id, query: 'SELECT 1' },
    });
    assert.equal(saved.status, 201);
    const del = await s.request('DELETE', `/api/v1/datasources/${a.id}`, { as: admin });
    assert.equal(del.status, 204);
    // The pool ended its connections before the answer; the server drops the backend as the socket closes.
    for (let i = 0; i < 200 && (await pooled()) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await pooled(), 0);
    assert.equal((await s.request('GET', `/api/v1/datasources/${a.id}`, { as: viewer })).status, 404);
    assert.equal((await s.request('GET', `/api/v1/queries/${saved.body.id}`, { as: viewer })).status, 404);
    assert.equal((await s.request('DELETE', `/api/v1/datasources/${a.id}`, { as: admin })).status, 404);
  });

  test('roles: viewers read, editors query and browse, admins manage', async () => {
    const a = await createSource();
    // With the status an editor gets: the route works for them.
    const editorOnly: [string, string, unknown, number][] = [
      ['POST', `/api/v1/datasources/${a.id}/query`, { query: 'SELECT 1' }, 200],
      ['GET', `/api/v1/datasources/${a.id}/schema`, undefined, 200],
      ['POST', '/api/v1/query', { dataSourceId: a.id, query: 'SELECT 1' }, 200],
      ['POST', '/api/v1/queries', { name: 'Q', dataSourceId: a.id, query: 'SELECT 1' }, 201],
    ];
    const adminOnly: [string, string, unknown?][] = [
      ['POST', '/api/v1/datasources', { name: 'N', slug: 'never', type: 'postgres', connectionUrl: urlWithPassword }],
      ['PUT', `/api/v1/datasources/${a.id}`, { name: 'N' }],
      ['DELETE', `/api/v1/datasources/${a.id}`],
      ['POST', `/api/v1/datasources/${a.id}/test`],
    ];
    for (const [method, path, body] of [...editorOnly, ...adminOnly]) {
      const r = await s.request(method, path, { as: viewer, body });
      assert.equal(r.status, 403, `viewer ${method} ${path}`);
      assert.equal(r.body.error.code, 'FORBIDDEN');
    }
    for (const [method, path, body] of adminOnly) {
      const r = await s.request(method, path, { as: editor, body });
      assert.equal(r.status, 403, `editor ${method} ${path}`);
    }
    for (const [method, path, body, status] of editorOnly) {
      const r = await s.request(method, path, { as: editor, body });
      assert.equal(r.status, status, `editor ${method} ${path}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await s.request('GET', `/api/v1/datasources/${a.id}`, { as: viewer })).status, 200);
    assert.equal(
      (await s.request('PUT', `/api/v1/datasources/${a.id}`, { as: owner, body: { name: 'By owner' } })).status,
      200,
    );
    for (const [method, path, body] of [...editorOnly, ...adminOnly])
      assert.equal((await s.request(method, path, { body })).status, 401, `anonymous ${method} ${path}`);
  });

  test("another tenant's data source is 404 on every route", async () => {
    const a = await createSource();
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v1/datasources/${a.id}`],
      ['PUT', `/api/v1/datasources/${a.id}`, { name: 'Mine now' }],
      ['DELETE', `/api/v1/datasources/${a.id}`],
      ['POST', `/api/v1/datasources/${a.id}/test`],
      ['POST', `/api/v1/datasources/${a.id}/query`, { query: 'SELECT 1' }],
      ['GET', `/api/v1/datasources/${a.id}/schema`],
      ['POST', '/api/v1/query', { dataSourceId: a.id, query: 'SELECT 1' }],
      ['POST', '/api/v1/queries', { name: 'Q', dataSourceId: a.id, query: 'SELECT 1' }],
    ];
    for (const [method, path, body] of routes) {
      const r = await s.request(method, path, { as: stranger, body });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.error.code, 'NOT_FOUND');
    }
    const list = await s.request('GET', '/api/v1/datasources', { as: stranger });
    assert.equal(
      list.body.dataSources.some((d: { id: number }) => d.id === a.id),
      false,
    );
    assert.equal((await s.request('GET', `/api/v1/datasources/${a.id}`, { as: viewer })).status, 200);
  });

  test('changes and query runs are in the audit log, without the URL or parameter values', async () => {
    const a = await createSource();
    await s.request('POST', `/api/v1/datasources/${a.id}/query`, {
      as: editor,
      body: { query: 'SELECT :who AS who', parameters: { who: 'private-value-123' } },
    });
    const r = await s.request('GET', '/api/v1/audit?limit=100', { as: admin });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const text = JSON.stringify(r.body);
    assert.match(text, /datasource\.create/);
    assert.match(text, /query\.run/);
    assert.equal(text.includes(PASSWORD), false);
    assert.equal(text.includes('private-value-123'), false);
  });
});
