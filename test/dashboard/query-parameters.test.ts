import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/** Dashboard parameters whose choices come from a query, chained (a city's query uses the country), on PostgreSQL. */
describe('query parameters', () => {
  let target: FreshDatabase;
  let s: DashboardServer;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let stranger: SignedIn;
  let sourceId: number;
  let dashboardId: number;
  let etag: string;

  const COUNTRIES = 'SELECT DISTINCT country FROM places ORDER BY country';
  const CITIES = 'SELECT city FROM places WHERE country = :country ORDER BY city';
  const definition = (parameters: unknown[]) => ({
    layout: { type: 'grid', columns: 12, rowHeight: 40 },
    dataSources: [{ id: sourceId }],
    widgets: [
      {
        id: 'people',
        type: 'stat',
        position: { x: 0, y: 0, w: 4, h: 3 },
        dataSourceId: sourceId,
        query: 'SELECT people FROM places WHERE city = :city',
      },
    ],
    parameters,
  });
  const chain = [
    { name: 'country', type: 'query', label: 'Country', dataSourceId: 0, query: COUNTRIES },
    { name: 'city', type: 'query', label: 'City', dataSourceId: 0, query: CITIES },
  ];

  before(async () => {
    target = await freshPostgres('dsqparams');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE places (country text NOT NULL, city text NOT NULL, people int NOT NULL);
      INSERT INTO places VALUES ('France', 'Paris', 2100), ('France', 'Lyon', 520), ('Japan', 'Osaka', 2700),
        ('Japan', 'Tokyo', 14000), ('Spain', 'Madrid', 3300);`);
    await c.end();
    s = await startDashboard('dsqparams');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Places', slug: 'places', type: 'postgres', connectionUrl: target.url },
    });
    sourceId = ds.body.id;
    for (const p of chain) p.dataSourceId = sourceId;
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'places', title: 'Places', definition: definition(chain) },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    dashboardId = d.body.id;
    etag = String(d.headers.etag);
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  const options = (name: string, params: Record<string, unknown> = {}, who = viewer) =>
    s.request('POST', `/api/v1/dashboards/${dashboardId}/parameters/${name}/options`, { as: who, body: { params } });

  test("a viewer gets a query parameter's choices, and the next one's follow the value chosen", async () => {
    const countries = await options('country');
    assert.equal(countries.status, 200, JSON.stringify(countries.body));
    assert.deepEqual(countries.body, { options: ['France', 'Japan', 'Spain'], truncated: false });
    // The values of every parameter may be sent: each query gets only those it names.
    assert.deepEqual((await options('city', { country: 'Japan', city: 'Paris' })).body.options, ['Osaka', 'Tokyo']);
    assert.deepEqual((await options('city', { country: 'France' })).body.options, ['Lyon', 'Paris']);
    assert.deepEqual((await options('city', { country: 'Nowhere' })).body.options, []);
    const widget = await s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/people/run`, {
      as: viewer,
      body: { params: { country: 'Japan', city: 'Tokyo' } },
    });
    assert.deepEqual(widget.body.rows, [{ people: 14000 }]);
  });

  test('a missing value of the chain, an unknown parameter, another tenant: clear errors', async () => {
    const missing = await options('city');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
    assert.match(missing.body.error.message, /country/);
    assert.equal((await options('nope')).status, 404);
    assert.equal((await options('country', {}, stranger)).status, 404);
    const bad = await s.request('POST', `/api/v1/dashboards/${dashboardId}/parameters/not-a-name!/options`, {
      as: viewer,
      body: {},
    });
    assert.equal(bad.status, 400);
    const extra = await s.request('POST', `/api/v1/dashboards/${dashboardId}/parameters/country/options`, {
      as: viewer,
      body: { params: {}, other: 1 },
    });
    assert.equal(extra.status, 400);
  });

  test('a query parameter needs its SQL and a listed source, and may use only the parameters before it', async () => {
    const cases: [unknown[], RegExp][] = [
      [[{ name: 'country', type: 'query', query: COUNTRIES }], /dataSourceId and query/],
      [[{ name: 'country', type: 'query', dataSourceId: sourceId }], /dataSourceId and query/],
      [[{ name: 'country', type: 'query', dataSourceId: 999_999, query: COUNTRIES }], /not in definition.dataSources/],
      [[{ name: 'country', type: 'text', query: COUNTRIES }], /only a query parameter/],
      [[chain[1], chain[0]], /only the parameters listed before it, not :country/],
      [[{ ...chain[0], query: 'SELECT :country' }], /not :country/],
    ];
    for (const [parameters, why] of cases) {
      const r = await s.request('PUT', `/api/v1/dashboards/${dashboardId}`, {
        as: editor,
        headers: { 'if-match': etag },
        body: { definition: definition(parameters) },
      });
      assert.equal(r.status, 400, `${JSON.stringify(parameters)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, why);
    }
  });

  test('a public link shows a query parameter as a text field, never its SQL', async () => {
    const share = await s.request('PUT', `/api/v1/dashboards/${dashboardId}/share`, { as: editor });
    assert.ok([200, 201].includes(share.status), JSON.stringify(share.body));
    const token = new URL(share.body.url).pathname.split('/').pop();
    const shown = await s.request('GET', `/api/v1/public/dashboards/${token}`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual(shown.body.definition.parameters, [
      { name: 'country', type: 'text', label: 'Country' },
      { name: 'city', type: 'text', label: 'City' },
    ]);
    assert.doesNotMatch(JSON.stringify(shown.body), /places/);
  });
});
