import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { valuesUsedBy } from '../../src/dashboard/sql/widget.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/**
 * What the web app's dashboards need of the API: dashboard-level parameters and an auto-refresh interval in
 * the definition, and a route that draws a saved widget for any member (viewers included) with parameter values.
 */
describe('dashboard parameters, refresh and widget runs', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let stranger: SignedIn;
  let sourceId: number;
  let savedId: number;
  let dashboardId: number;

  const definition = (extra: Record<string, unknown> = {}, widgets: unknown[] = []) => ({
    layout: { type: 'grid', columns: 12, rowHeight: 40 },
    dataSources: [{ id: sourceId }],
    widgets,
    ...extra,
  });

  before(async () => {
    target = await freshPostgres('dashwidgets');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE events (id int PRIMARY KEY, kind text NOT NULL, at timestamptz NOT NULL);
      INSERT INTO events SELECT g, CASE WHEN g % 3 = 0 THEN 'error' ELSE 'view' END, now() - make_interval(hours => g) FROM generate_series(1, 48) g;`);
    await c.end();
    s = await startDashboard('dashwidgets');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Events', slug: 'events', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(ds.status, 201, JSON.stringify(ds.body));
    sourceId = ds.body.id;
    const q = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: {
        name: 'By kind',
        dataSourceId: sourceId,
        query: 'SELECT kind, count(*) AS n FROM events WHERE kind = :kind GROUP BY kind',
      },
    });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    savedId = q.body.id;
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  test('parameters and refreshSeconds are stored and answered as given', async () => {
    const parameters = [
      { name: 'range', type: 'time_range', label: 'Time range', default: '24h' },
      { name: 'kind', type: 'choice', choices: ['view', 'error'], default: 'view' },
      { name: 'q', type: 'text' },
    ];
    const widgets = [
      {
        id: 'recent',
        type: 'line',
        title: 'Recent',
        position: { x: 0, y: 0, w: 6, h: 4 },
        dataSourceId: sourceId,
        query:
          "SELECT date_trunc('hour', at) AS hour, count(*) AS n FROM events WHERE at >= :range_from::timestamptz AND at < :range_to::timestamptz GROUP BY 1 ORDER BY 1",
      },
      { id: 'kinds', type: 'pie', title: 'Kinds', position: { x: 6, y: 0, w: 6, h: 4 }, savedQueryId: savedId },
      {
        id: 'all',
        type: 'stat',
        position: { x: 0, y: 4, w: 3, h: 2 },
        dataSourceId: sourceId,
        query: 'SELECT count(*) AS total FROM events',
      },
      { id: 'note', type: 'text', position: { x: 3, y: 4, w: 9, h: 2 }, options: { markdown: '# Hello' } },
    ];
    const r = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'events', title: 'Events', definition: definition({ parameters, refreshSeconds: 60 }, widgets) },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    dashboardId = r.body.id;
    const got = await s.request('GET', `/api/v1/dashboards/${dashboardId}`, { as: viewer });
    assert.deepEqual(got.body.definition.parameters, parameters);
    assert.equal(got.body.definition.refreshSeconds, 60);
    // A definition without them (every dashboard made before) stays valid.
    const plain = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'plain', title: 'Plain', definition: definition() },
    });
    assert.equal(plain.status, 201);
  });

  test('a bad parameter or refresh interval is 400 VALIDATION_ERROR naming the field', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['unknown type', { parameters: [{ name: 'a', type: 'date' }] }, /parameters/],
      ['bad name', { parameters: [{ name: '1a', type: 'text' }] }, /name/],
      ['unknown field', { parameters: [{ name: 'a', type: 'text', colour: 'red' }] }, /parameters/],
      ['choice without choices', { parameters: [{ name: 'a', type: 'choice' }] }, /choices/],
      [
        'default not a choice',
        { parameters: [{ name: 'a', type: 'choice', choices: ['x'], default: 'y' }] },
        /default/,
      ],
      ['choices on text', { parameters: [{ name: 'a', type: 'text', choices: ['x'] }] }, /only a choice/],
      ['bad time preset', { parameters: [{ name: 'a', type: 'time_range', default: '2w' }] }, /time range/],
      [
        'name twice',
        {
          parameters: [
            { name: 'a', type: 'text' },
            { name: 'a', type: 'text' },
          ],
        },
        /twice/,
      ],
      [
        'range_from clashes',
        {
          parameters: [
            { name: 'r', type: 'time_range' },
            { name: 'r_from', type: 'text' },
          ],
        },
        /r_from/,
      ],
      ['refresh too often', { refreshSeconds: 2 }, /refreshSeconds/],
      ['refresh negative', { refreshSeconds: -1 }, /refreshSeconds/],
      ['refresh a fraction', { refreshSeconds: 7.5 }, /refreshSeconds/],
      ['refresh over a day', { refreshSeconds: 86_401 }, /refreshSeconds/],
    ];
    for (const [what, extra, message] of cases) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: editor,
        body: { slug: 'bad', title: 'Bad', definition: definition(extra) },
      });
      assert.equal(r.status, 400, what);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', what);
      assert.match(r.body.error.message, message, what);
    }
  });

  test("a viewer draws each widget with the dashboard's values; each query gets only the values it names", async () => {
    const params = {
      range_from: new Date(Date.now() - 6 * 3_600_000).toISOString(),
      range_to: new Date().toISOString(),
      kind: 'error',
      q: 'unused',
    };
    const line = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/recent/run`, {
      as: viewer,
      body: { params },
    });
    assert.equal(line.status, 200, JSON.stringify(line.body));
    assert.deepEqual(line.body.columns, ['hour', 'n']);
    const total = line.body.rows.reduce((sum: number, r: { n: string }) => sum + Number(r.n), 0);
    assert.ok(total >= 5 && total <= 6, `events in the last 6 hours: ${total}`);

    const pie = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/kinds/run`, {
      as: viewer,
      body: { params },
    });
    assert.equal(pie.status, 200, JSON.stringify(pie.body));
    assert.deepEqual(pie.body.rows, [{ kind: 'error', n: '16' }]);

    const stat = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/all/run`, { as: viewer, body: {} });
    assert.deepEqual(stat.body.rows, [{ total: '48' }]);

    const audit = await s.request('GET', '/api/v1/audit?action=query.run', { as: admin });
    const widgetRun = audit.body.items.find(
      (e: { details: { kind: string; widgetId?: string } }) =>
        e.details.kind === 'widget' && e.details.widgetId === 'kinds',
    );
    assert.ok(widgetRun, 'the run is in the audit log');
    assert.equal(widgetRun.details.savedQueryId, savedId);
    assert.deepEqual(widgetRun.details.parameters, ['kind'], 'names only, and only the one used');
  });

  test('widget runs refuse what does not exist, text widgets, other tenants and bad bodies', async () => {
    const missing = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/nope/run`, {
      as: viewer,
      body: {},
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const text = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/note/run`, {
      as: viewer,
      body: {},
    });
    assert.equal(text.status, 400);
    assert.match(text.body.error.message, /no query/);
    const other = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/all/run`, {
      as: stranger,
      body: {},
    });
    assert.equal(other.status, 404);
    const badId = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/a%20b/run`, {
      as: viewer,
      body: {},
    });
    assert.equal(badId.status, 400);
    const extra = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/all/run`, {
      as: viewer,
      body: { query: 'DELETE FROM events' },
    });
    assert.equal(extra.status, 400, 'a caller cannot send SQL of their own');
    const rows = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/all/run`, {
      as: viewer,
      body: { maxRows: 0 },
    });
    assert.equal(rows.status, 400);
    const missingValue = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/kinds/run`, {
      as: viewer,
      body: { params: {} },
    });
    assert.equal(missingValue.status, 400);
    assert.match(missingValue.body.error.message, /kind/);
    const anonymous = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/all/run`, { body: {} });
    assert.equal(anonymous.status, 401);
  });

  test("the web app's page and files are not counted against the per-address limit (60 a minute before sign-in)", async () => {
    for (let i = 0; i < 70; i++) {
      const r = await s.request('GET', i % 2 ? '/' : '/dashboards/1');
      assert.notEqual(r.status, 429, `request ${i + 1}`);
      assert.equal(r.headers['x-ratelimit-limit'], undefined);
    }
    // The API still is.
    const api = await s.request('GET', '/api/v1/setup');
    assert.ok(api.headers['x-ratelimit-limit']);
  });

  test('valuesUsedBy keeps the names in code, not in strings or comments', () => {
    const values = { a: 1, b: 2, c: 3, d: 4 };
    assert.deepEqual(valuesUsedBy("SELECT :a, ':b' -- :c\n, x::d FROM t", 'postgres', values), { a: 1 });
    assert.deepEqual(valuesUsedBy('SELECT @a, `:b` /* :c */', 'mysql', values), { a: 1 });
  });
});
