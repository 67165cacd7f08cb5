import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/** Saved queries' search and authorship, and each person's own query history (bounded), on real PostgreSQL. */
describe('the query workflow: saved queries and query history', () => {
  let target: FreshDatabase;
  let s: DashboardServer;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let stranger: SignedIn;
  let sourceId: number;

  before(async () => {
    target = await freshPostgres('dsqworkflow');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE sales (country text NOT NULL, amount int NOT NULL);
      INSERT INTO sales VALUES ('France', 10), ('Spain', 20), ('Japan', 30);`);
    await c.end();
    s = await startDashboard('dsqworkflow');
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eve' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Vic' });
    stranger = await s.signIn({ tenant: 'globex', role: 'owner', name: 'Sam' });
    const r = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    sourceId = r.body.id;
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  test('a saved query names who made it and who last changed it, and when', async () => {
    const made = await s.request('POST', '/api/v1/queries', {
      as: admin,
      body: { name: 'Sales by country', dataSourceId: sourceId, query: 'SELECT country, amount FROM sales' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.createdByName, 'Ada');
    assert.equal(made.body.updatedByName, 'Ada');
    assert.equal(made.body.updatedBy, admin.userId);

    const renamed = await s.request('PUT', `/api/v1/queries/${made.body.id}`, {
      as: editor,
      body: { name: 'Sales per country' },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.name, 'Sales per country');
    assert.equal(renamed.body.createdByName, 'Ada');
    assert.equal(renamed.body.updatedByName, 'Eve');
    assert.equal(renamed.body.updatedBy, editor.userId);
    assert.ok(renamed.body.updatedAt >= made.body.updatedAt);
    const read = await s.request('GET', `/api/v1/queries/${made.body.id}`, { as: viewer });
    assert.equal(read.body.updatedByName, 'Eve');
  });

  test('search finds words in the name, description or SQL, case-insensitively, with % and _ taken literally', async () => {
    for (const [name, query, description] of [
      ['Top spenders', 'SELECT country FROM sales ORDER BY amount DESC', undefined],
      ['100% of rows', 'SELECT * FROM sales', 'every sale'],
      ['Japan only', "SELECT amount FROM sales WHERE country = 'Japan'", undefined],
    ] as const) {
      const r = await s.request('POST', '/api/v1/queries', {
        as: editor,
        body: { name, dataSourceId: sourceId, query, ...(description ? { description } : {}) },
      });
      assert.equal(r.status, 201);
    }
    const names = async (search: string) => {
      const r = await s.request('GET', `/api/v1/queries?search=${encodeURIComponent(search)}`, { as: viewer });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.items.map((q: { name: string }) => q.name);
    };
    assert.deepEqual(await names('SPEND'), ['Top spenders']);
    assert.deepEqual(await names('japan'), ['Japan only']);
    assert.deepEqual(await names('EVERY sale'), ['100% of rows']);
    assert.deepEqual(await names('100%'), ['100% of rows']);
    assert.deepEqual(await names('%'), ['100% of rows']);
    assert.deepEqual(await names('_'), []);
    assert.deepEqual(await names('nothing like this'), []);
    const other = await s.request('GET', '/api/v1/queries?search=sales', { as: stranger });
    assert.deepEqual(other.body.items, []);
  });

  test('a bad search or history request is a clear 400 in the error shape', async () => {
    for (const path of [
      '/api/v1/queries?search=',
      `/api/v1/queries?search=${'x'.repeat(201)}`,
      '/api/v1/queries?search=a%00b',
      '/api/v1/query-history?limit=0',
      '/api/v1/query-history?limit=101',
      '/api/v1/query-history?limit=many',
      '/api/v1/query-history?other=1',
    ]) {
      const r = await s.request('GET', path, { as: viewer });
      assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', path);
      assert.match(r.body.error.message, /search|limit|other|propert/, path);
    }
    const r = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: sourceId, query: 'SELECT 1', history: 'yes' },
    });
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /history/);
  });

  test("the SQL editor's runs are kept in the person's own history, newest first, with their values and outcome", async () => {
    const run = (who: SignedIn, query: string, params: Record<string, unknown> = {}, history = true) =>
      s.request('POST', '/api/v1/query', { as: who, body: { dataSourceId: sourceId, query, params, history } });
    assert.equal((await run(editor, 'SELECT country FROM sales WHERE amount > :min', { min: 15 })).status, 200);
    assert.equal((await run(editor, 'SELECT no_such_column FROM sales')).status, 400);
    // A dashboard's preview runs without `history`: it is not the person's editor work.
    assert.equal((await run(editor, 'SELECT 42 AS preview', {}, false)).status, 200);
    assert.equal((await run(admin, 'SELECT 1 AS admins_own')).status, 200);

    const mine = await s.request('GET', '/api/v1/query-history', { as: editor });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.items.length, 2);
    const [failed, ok] = mine.body.items;
    assert.equal(failed.query, 'SELECT no_such_column FROM sales');
    assert.equal(failed.rowCount, null);
    assert.equal(typeof failed.error, 'string');
    assert.equal(ok.query, 'SELECT country FROM sales WHERE amount > :min');
    assert.deepEqual(ok.params, { min: 15 });
    assert.equal(ok.rowCount, 2);
    assert.equal(ok.error, null);
    assert.equal(ok.dataSourceId, sourceId);
    assert.ok(Date.parse(ok.ranAt) <= Date.parse(failed.ranAt));

    const admins = await s.request('GET', '/api/v1/query-history', { as: admin });
    assert.deepEqual(
      admins.body.items.map((i: { query: string }) => i.query),
      ['SELECT 1 AS admins_own'],
    );
    const strangers = await s.request('GET', '/api/v1/query-history', { as: stranger });
    assert.deepEqual(strangers.body.items, []);
  });

  test('the history keeps the last 100 runs of a person, and the person can clear it', async () => {
    const who = await s.signIn({ tenant: 'acme', role: 'editor', email: 'busy@example.com', name: 'Busy' });
    for (let i = 1; i <= 105; i++) {
      const r = await s.request('POST', '/api/v1/query', {
        as: who,
        body: { dataSourceId: sourceId, query: `SELECT ${i} AS n`, history: true },
      });
      assert.equal(r.status, 200);
    }
    const all = await s.request('GET', '/api/v1/query-history?limit=100', { as: who });
    assert.equal(all.body.items.length, 100);
    assert.equal(all.body.items[0].query, 'SELECT 105 AS n');
    assert.equal(all.body.items[99].query, 'SELECT 6 AS n');
    const few = await s.request('GET', '/api/v1/query-history?limit=3', { as: who });
    assert.deepEqual(
      few.body.items.map((i: { query: string }) => i.query),
      ['SELECT 105 AS n', 'SELECT 104 AS n', 'SELECT 103 AS n'],
    );

    const cleared = await s.request('DELETE', '/api/v1/query-history', { as: who });
    assert.equal(cleared.status, 204);
    assert.deepEqual((await s.request('GET', '/api/v1/query-history', { as: who })).body.items, []);
    // Only that person's runs went.
    assert.equal((await s.request('GET', '/api/v1/query-history', { as: editor })).body.items.length, 2);
  });
});
