import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const layout = { type: 'grid', columns: 12, rowHeight: 30 };

describe('dashboard export and import', () => {
  let s: DashboardServer;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let otherAdmin: SignedIn;
  let otherEditor: SignedIn;
  let warehouse: number;
  let crm: number;
  let dashboardId: number;

  const source = async (as: SignedIn, name: string, slug: string) => {
    const r = await s.request('POST', '/api/v1/datasources', {
      as,
      body: { name, slug, type: 'postgres', connectionUrl: `postgres://u:p@${slug}.example:5432/x` },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };

  before(async () => {
    s = await startDashboard('dashtransfer');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    otherAdmin = await s.signIn({ tenant: 'globex', role: 'admin' });
    otherEditor = await s.signIn({ tenant: 'globex', role: 'editor' });
    warehouse = await source(admin, 'Warehouse', 'warehouse');
    crm = await source(admin, 'CRM', 'crm');
    const saved = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'Leads', dataSourceId: crm, query: 'SELECT count(*) AS leads FROM leads' },
    });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'sales',
        title: 'Sales',
        description: 'Monthly sales',
        definition: {
          layout,
          dataSources: [{ id: warehouse, alias: 'wh' }],
          parameters: [{ name: 'range', type: 'time_range', default: '30d' }],
          widgets: [
            {
              id: 'orders',
              type: 'line',
              title: 'Orders',
              position: { x: 0, y: 0, w: 6, h: 4 },
              dataSourceId: warehouse,
              query: 'SELECT day, orders FROM daily',
              options: { x: 'day', y: ['orders'] },
            },
            {
              id: 'leads',
              type: 'stat',
              title: 'Leads',
              position: { x: 6, y: 0, w: 6, h: 4 },
              savedQueryId: saved.body.id,
            },
            {
              id: 'note',
              type: 'text',
              position: { x: 0, y: 4, w: 12, h: 2 },
              options: { markdown: 'Figures in **EUR**' },
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    dashboardId = created.body.id;
  });
  after(async () => s?.close());

  test('an export names sources by slug, inlines the saved query, and is a download', async () => {
    const r = await s.request('GET', `/api/v1/dashboards/${dashboardId}/export`, { as: viewer });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-disposition'], 'attachment; filename="sales.dashboard.json"');
    assert.deepEqual(r.body, {
      dashboards: [
        {
          slug: 'sales',
          title: 'Sales',
          description: 'Monthly sales',
          definition: {
            layout,
            dataSources: [{ slug: 'warehouse', alias: 'wh' }, { slug: 'crm' }],
            parameters: [{ name: 'range', type: 'time_range', default: '30d' }],
            widgets: [
              {
                id: 'orders',
                type: 'line',
                title: 'Orders',
                position: { x: 0, y: 0, w: 6, h: 4 },
                query: 'SELECT day, orders FROM daily',
                options: { x: 'day', y: ['orders'] },
                dataSource: 'warehouse',
              },
              {
                id: 'leads',
                type: 'stat',
                title: 'Leads',
                position: { x: 6, y: 0, w: 6, h: 4 },
                query: 'SELECT count(*) AS leads FROM leads',
                dataSource: 'crm',
              },
              {
                id: 'note',
                type: 'text',
                position: { x: 0, y: 4, w: 12, h: 2 },
                options: { markdown: 'Figures in **EUR**' },
              },
            ],
          },
        },
      ],
    });
    assert.equal((await s.request('GET', '/api/v1/dashboards/999999/export', { as: viewer })).status, 404);
    assert.equal(
      (await s.request('GET', `/api/v1/dashboards/${dashboardId}/export`, { as: otherAdmin })).status,
      404,
      "another tenant's dashboard is not found",
    );
    assert.equal((await s.request('GET', `/api/v1/dashboards/${dashboardId}/export`)).status, 401);
  });

  test("the export imports into another tenant onto that tenant's sources of the same slugs", async () => {
    const bundle = (await s.request('GET', `/api/v1/dashboards/${dashboardId}/export`, { as: editor })).body;
    const missing = await s.request('POST', '/api/v1/dashboards/import', { as: otherEditor, body: bundle });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
    assert.equal(
      missing.body.error.message,
      'dashboards[0].definition.dataSources[0].slug: no data source "warehouse" in the tenant',
    );
    assert.equal(
      (await s.request('GET', '/api/v1/dashboards', { as: otherEditor })).body.meta.total,
      0,
      'nothing made',
    );

    const theirWarehouse = await source(otherAdmin, 'Their warehouse', 'warehouse');
    const theirCrm = await source(otherAdmin, 'Their CRM', 'crm');
    const r = await s.request('POST', '/api/v1/dashboards/import', { as: otherEditor, body: bundle });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.dashboards.length, 1);
    const [made] = r.body.dashboards;
    assert.deepEqual(
      { ...made, id: undefined },
      { id: undefined, slug: 'sales', title: 'Sales', version: 1, outcome: 'created' },
    );
    const got = (await s.request('GET', `/api/v1/dashboards/${made.id}`, { as: otherEditor })).body;
    assert.deepEqual(got.definition.dataSources, [{ id: theirWarehouse, alias: 'wh' }, { id: theirCrm }]);
    assert.deepEqual(
      got.definition.widgets.map((w: { dataSourceId?: number }) => w.dataSourceId),
      [theirWarehouse, theirCrm, undefined],
    );
    assert.equal(got.description, 'Monthly sales');

    const audit = (await s.request('GET', '/api/v1/audit?action=dashboard.create', { as: otherAdmin })).body.items[0];
    assert.equal(audit.userId, otherEditor.userId);
    assert.deepEqual(audit.details, { slug: 'sales', title: 'Sales', by: 'import' });
  });

  test('a taken slug is 409 unless overwrite=true, which makes a new version; the same content changes nothing', async () => {
    const bundle = (await s.request('GET', `/api/v1/dashboards/${dashboardId}/export`, { as: editor })).body;
    const taken = await s.request('POST', '/api/v1/dashboards/import', { as: editor, body: bundle });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.code, 'CONFLICT');
    assert.match(taken.body.error.message, /"sales" already exists.*overwrite=true/);

    // Over the dashboard it came from, the export's one difference is the saved query it carries inline.
    const first = await s.request('POST', '/api/v1/dashboards/import?overwrite=true', { as: editor, body: bundle });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.dashboards.map((d: { id: number; outcome: string; version: number }) => [d.id, d.outcome, d.version]),
      [[dashboardId, 'updated', 2]],
    );
    const same = await s.request('POST', '/api/v1/dashboards/import?overwrite=true', { as: editor, body: bundle });
    assert.deepEqual(
      same.body.dashboards.map((d: { outcome: string; version: number }) => [d.outcome, d.version]),
      [['unchanged', 2]],
    );

    bundle.dashboards[0].title = 'Sales (imported)';
    const changed = await s.request('POST', '/api/v1/dashboards/import?overwrite=true', { as: editor, body: bundle });
    assert.deepEqual(
      changed.body.dashboards.map((d: { id: number; outcome: string; version: number }) => [
        d.id,
        d.outcome,
        d.version,
      ]),
      [[dashboardId, 'updated', 3]],
    );
    const got = (await s.request('GET', `/api/v1/dashboards/${dashboardId}`, { as: viewer })).body;
    assert.equal(got.title, 'Sales (imported)');
    assert.equal(got.definition.widgets[1].query, 'SELECT count(*) AS leads FROM leads');
    assert.equal(got.definition.widgets[1].dataSourceId, crm);
    const versions = (await s.request('GET', `/api/v1/dashboards/${dashboardId}/versions`, { as: viewer })).body;
    assert.equal(versions.items.length, 3);
  });

  test('bad imports are 400 naming the field, viewers are 403, and nothing of a refused import is kept', async () => {
    const dash = (slug: string, extra: Record<string, unknown> = {}) => ({
      slug,
      title: slug,
      definition: { layout, widgets: [] },
      ...extra,
    });
    const cases: [unknown, RegExp][] = [
      [{}, /dashboards/],
      [{ dashboards: [] }, /dashboards/],
      [[], /body|object/],
      [{ dashboards: [dash('a')], dataSources: [{ slug: 'x' }] }, /^dataSources: data sources are not imported/],
      [{ dashboards: [dash('a')], tenant: 'acme' }, /^tenant: an import goes into your own tenant/],
      [{ dashboards: [dash('a'), dash('a')] }, /^dashboards\[1\]\.slug: "a" appears twice/],
      [{ dashboards: [dash('Not A Slug')] }, /slug/],
      [{ dashboards: [dash('a', { colour: 'red' })] }, /colour/],
      [
        {
          dashboards: [
            {
              slug: 'a',
              title: 'A',
              definition: { layout, widgets: [{ id: 'w', type: 'bar', position: { x: 8, y: 0, w: 6, h: 2 } }] },
            },
          ],
        },
        /^dashboards\[0\]: definition\.widgets\[0\]\.position: x \+ w \(14\) exceeds the layout's 12 columns$/,
      ],
      [
        {
          dashboards: [
            {
              slug: 'a',
              title: 'A',
              definition: {
                layout,
                widgets: [
                  {
                    id: 'w',
                    type: 'bar',
                    position: { x: 0, y: 0, w: 6, h: 2 },
                    dataSource: 'nowhere',
                    query: 'SELECT 1',
                  },
                ],
              },
            },
          ],
        },
        /^dashboards\[0\]\.definition\.widgets\[0\]\.dataSource: no data source "nowhere" in the tenant$/,
      ],
      // The first dashboard is good: the second's refusal takes it back too.
      [
        {
          dashboards: [
            dash('fine'),
            {
              slug: 'b',
              title: 'B',
              definition: {
                layout,
                widgets: [
                  {
                    id: 'w',
                    type: 'bar',
                    position: { x: 0, y: 0, w: 6, h: 2 },
                    dataSource: 'nowhere',
                    query: 'SELECT 1',
                  },
                ],
              },
            },
          ],
        },
        /dashboards\[1\]\.definition\.widgets\[0\]\.dataSource/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await s.request('POST', '/api/v1/dashboards/import', { as: editor, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', JSON.stringify(body));
      assert.match(r.body.error.message, message, JSON.stringify(body));
    }
    const malformed = await s.request('POST', '/api/v1/dashboards/import', { as: editor, body: '{"dashboards":' });
    assert.equal(malformed.status, 400);
    assert.equal(
      (
        await s.request('POST', '/api/v1/dashboards/import?overwrite=maybe', {
          as: editor,
          body: { dashboards: [dash('a')] },
        })
      ).status,
      400,
    );
    const list = await s.request('GET', '/api/v1/dashboards?search=fine', { as: editor });
    assert.equal(list.body.meta.total, 0, 'the refused import made nothing');

    const denied = await s.request('POST', '/api/v1/dashboards/import', {
      as: viewer,
      body: { dashboards: [dash('a')] },
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'FORBIDDEN');
  });
});
