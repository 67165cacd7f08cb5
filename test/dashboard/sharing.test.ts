import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const layout = { type: 'grid', columns: 12, rowHeight: 30 };

describe('public links to dashboards', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let stranger: SignedIn;
  let dashboardId: number;
  let sourceId: number;

  before(async () => {
    target = await freshPostgres('dashshare');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(
      `CREATE TABLE sales (region text, amount int); INSERT INTO sales VALUES ('north', 5), ('south', 9), ('north', 1);`,
    );
    await c.end();
    s = await startDashboard('dashshare');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
    const src = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Sales', slug: 'sales', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(src.status, 201, JSON.stringify(src.body));
    sourceId = src.body.id;
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'sales',
        title: 'Sales',
        description: 'By region',
        definition: {
          layout,
          dataSources: [{ id: sourceId }],
          parameters: [{ name: 'region', type: 'choice', choices: ['north', 'south'], default: 'north' }],
          widgets: [
            {
              id: 'total',
              type: 'stat',
              title: 'Total',
              position: { x: 0, y: 0, w: 4, h: 3 },
              dataSourceId: sourceId,
              query: 'SELECT sum(amount) AS total FROM sales WHERE region = :region',
            },
            { id: 'note', type: 'text', position: { x: 4, y: 0, w: 4, h: 3 }, options: { markdown: 'Hello' } },
          ],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    dashboardId = d.body.id;
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  const tokenOf = (url: string) => new URL(url).pathname.replace('/public/', '');

  test('an editor turns the link on: 201 once, then the same link; viewers and other tenants may not', async () => {
    const off = await s.request('GET', `/api/v1/dashboards/${dashboardId}/share`, { as: editor });
    assert.deepEqual(off.body, { shared: false });
    const on = await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: editor });
    assert.equal(on.status, 201);
    assert.equal(on.body.shared, true);
    assert.match(on.body.url, /^http:\/\/[^/]+\/public\/[A-Za-z0-9_-]{43}$/);
    const again = await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: admin });
    assert.equal(again.status, 200);
    assert.equal(again.body.url, on.body.url);
    assert.equal(
      (await s.request('GET', `/api/v1/dashboards/${dashboardId}/share`, { as: editor })).body.url,
      on.body.url,
    );

    assert.equal((await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: viewer })).status, 403);
    assert.equal((await s.request('GET', `/api/v1/dashboards/${dashboardId}/share`, { as: viewer })).status, 403);
    assert.equal((await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: stranger })).status, 404);
    assert.equal((await s.request('PUT', '/api/v1/dashboards/999999/share', { as: editor })).status, 404);

    const log = (await s.request('GET', '/api/v1/audit?action=dashboard.share', { as: admin })).body.items;
    assert.equal(log.length, 1, 'turning on an existing link is not a second record');
    const token = tokenOf(on.body.url);
    const c = new pg.Client({ connectionString: s.database.url });
    await c.connect();
    const stored = await c
      .query('SELECT token_hash, token_sealed FROM dashboard.dashboard_shares')
      .finally(() => c.end());
    assert.equal(stored.rows.length, 1);
    assert.ok(!JSON.stringify(stored.rows).includes(token), 'the token is not stored in clear');
  });

  test('anyone with the link sees the layout without SQL, and runs the widgets with bound parameters', async () => {
    const { url } = (await s.request('GET', `/api/v1/dashboards/${dashboardId}/share`, { as: editor })).body;
    const token = tokenOf(url);
    const view = await s.request('GET', `/api/v1/public/dashboards/${token}`);
    assert.equal(view.status, 200);
    assert.equal(view.headers['cache-control'], 'no-store');
    assert.equal(view.body.title, 'Sales');
    assert.deepEqual(
      view.body.definition.widgets.map((w: { id: string; runs: boolean }) => [w.id, w.runs]),
      [
        ['total', true],
        ['note', false],
      ],
    );
    const text = JSON.stringify(view.body);
    for (const secret of ['SELECT', 'sum(amount)', 'dataSourceId', 'dataSources', 'savedQueryId'])
      assert.ok(!text.includes(secret), `${secret} is not shown`);

    const north = await s.request('POST', `/api/v1/public/dashboards/${token}/widgets/total/run`, {
      body: { params: { region: 'north' } },
    });
    assert.equal(north.status, 200, JSON.stringify(north.body));
    assert.deepEqual(north.body.rows, [{ total: '6' }], 'sum() is a bigint, given as its digits');
    const south = await s.request('POST', `/api/v1/public/dashboards/${token}/widgets/total/run`, {
      body: { params: { region: "south' OR 1=1 --" } },
    });
    assert.deepEqual(south.body.rows, [{ total: null }], 'a value is bound, never spliced');

    const audit = (await s.request('GET', '/api/v1/audit?action=query.run', { as: admin })).body.items[0];
    assert.equal(audit.userId, null);
    assert.equal(audit.details.publicLink, true);
  });

  test('bad links and bad runs are clear errors; turning the link off ends it at once', async () => {
    const { url } = (await s.request('GET', `/api/v1/dashboards/${dashboardId}/share`, { as: editor })).body;
    const token = tokenOf(url);
    const made = 'A'.repeat(43);
    for (const path of [`/api/v1/public/dashboards/${made}`, '/api/v1/public/dashboards/short']) {
      const r = await s.request('GET', path);
      assert.ok(r.status === 404 || r.status === 400, path);
      assert.ok(r.body.error.code === 'NOT_FOUND' || r.body.error.code === 'VALIDATION_ERROR', path);
    }
    const cases: [string, unknown, number][] = [
      ['note', {}, 400],
      ['nope', {}, 404],
      ['total', { params: { region: 7 }, maxRows: 0 }, 400],
      ['total', { sql: 'SELECT 1' }, 400],
      ['total', { params: { region: 'north', other: 'x' } }, 200],
    ];
    for (const [widget, body, status] of cases) {
      const r = await s.request('POST', `/api/v1/public/dashboards/${token}/widgets/${widget}/run`, { body });
      assert.equal(r.status, status, `${widget} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }

    assert.equal((await s.request('DELETE', `/api/v1/dashboards/${dashboardId}/share`, { as: viewer })).status, 403);
    assert.equal((await s.request('DELETE', `/api/v1/dashboards/${dashboardId}/share`, { as: editor })).status, 204);
    const after = await s.request('GET', `/api/v1/public/dashboards/${token}`);
    assert.equal(after.status, 404);
    assert.match(after.body.error.message, /link was turned off/);
    assert.equal(
      (await s.request('POST', `/api/v1/public/dashboards/${token}/widgets/total/run`, { body: {} })).status,
      404,
    );
    assert.equal(
      (await s.request('DELETE', `/api/v1/dashboards/${dashboardId}/share`, { as: editor })).status,
      404,
      'nothing left to turn off',
    );

    const fresh = await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: editor });
    assert.equal(fresh.status, 201);
    assert.notEqual(tokenOf(fresh.body.url), token, 'turned on again, the link is a new one');
    assert.equal((await s.request('DELETE', `/api/v1/dashboards/${dashboardId}`, { as: editor })).status, 204);
    assert.equal(
      (await s.request('GET', `/api/v1/public/dashboards/${tokenOf(fresh.body.url)}`)).status,
      404,
      'a deleted dashboard takes its link along',
    );
  });
});
