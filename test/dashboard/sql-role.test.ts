import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const layout = { type: 'grid', columns: 12, rowHeight: 30 };

describe("a data source's sqlRole: who may write SQL on it", () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let open: number;
  let guarded: number;

  before(async () => {
    target = await freshPostgres('dashsqlrole');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(
      `CREATE TABLE payroll (name text, salary int); INSERT INTO payroll VALUES ('ada', 100), ('bob', 90);`,
    );
    await c.end();
    s = await startDashboard('dashsqlrole');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const a = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    const b = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'HR', slug: 'hr', type: 'postgres', connectionUrl: target.url, sqlRole: 'admin' },
    });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201, JSON.stringify(b.body));
    open = a.body.id;
    guarded = b.body.id;
  });
  after(async () => {
    await s?.close();
    await target?.drop();
  });

  test('sqlRole defaults to editor, is shown to everyone, and only takes editor, admin or owner', async () => {
    const list = await s.request('GET', '/api/v1/datasources', { as: viewer });
    const roles = Object.fromEntries(
      list.body.dataSources.map((d: { slug: string; sqlRole: string }) => [d.slug, d.sqlRole]),
    );
    assert.deepEqual(roles, { hr: 'admin', shop: 'editor' });
    for (const sqlRole of ['viewer', 'Admin', '', 3]) {
      const r = await s.request('PUT', `/api/v1/datasources/${open}`, { as: admin, body: { sqlRole } });
      assert.equal(r.status, 400, String(sqlRole));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
    const changed = await s.request('PUT', `/api/v1/datasources/${open}`, { as: admin, body: { sqlRole: 'owner' } });
    assert.equal(changed.body.sqlRole, 'owner');
    const back = await s.request('PUT', `/api/v1/datasources/${open}`, { as: admin, body: { sqlRole: 'editor' } });
    assert.equal(back.body.sqlRole, 'editor');
    const audit = (await s.request('GET', '/api/v1/audit?action=datasource.update', { as: admin })).body.items[0];
    assert.equal(audit.details.sqlRole, 'editor');
  });

  test('ad-hoc SQL and saved query text on a guarded source are for its role; running saved ones is not', async () => {
    const adhoc = await s.request('POST', '/api/v1/query', {
      as: editor,
      body: { dataSourceId: guarded, query: 'SELECT name, salary FROM payroll' },
    });
    assert.equal(adhoc.status, 403);
    assert.equal(adhoc.body.error.code, 'FORBIDDEN');
    assert.equal(
      adhoc.body.error.message,
      'query: only admins and owners write SQL on the data source "HR"; use one of its saved queries instead, or ask an admin',
    );
    // The same statement through the data source's own query route: the same rule, the same refusal.
    const direct = await s.request('POST', `/api/v1/datasources/${guarded}/query`, {
      as: editor,
      body: { query: 'SELECT name, salary FROM payroll' },
    });
    assert.equal(direct.status, 403, JSON.stringify(direct.body));
    assert.deepEqual(direct.body.error, adhoc.body.error);
    const runs = await s.request('GET', '/api/v1/audit?action=query.run', { as: admin });
    assert.equal(
      runs.body.items.filter((e: { targetId: string }) => e.targetId === String(guarded)).length,
      0,
      'a refused statement never ran',
    );
    assert.equal(
      (await s.request('POST', '/api/v1/query', { as: editor, body: { dataSourceId: open, query: 'SELECT 1 AS one' } }))
        .status,
      200,
      'an open source is unchanged',
    );
    assert.equal(
      (await s.request('POST', `/api/v1/datasources/${open}/query`, { as: editor, body: { query: 'SELECT 1 AS one' } }))
        .status,
      200,
    );
    assert.equal(
      (
        await s.request('POST', `/api/v1/datasources/${guarded}/query`, {
          as: admin,
          body: { query: 'SELECT count(*) AS n FROM payroll' },
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await s.request('POST', '/api/v1/query', {
          as: admin,
          body: { dataSourceId: guarded, query: 'SELECT count(*) AS n FROM payroll' },
        })
      ).status,
      200,
    );

    assert.equal(
      (
        await s.request('POST', '/api/v1/queries', {
          as: editor,
          body: { name: 'All pay', dataSourceId: guarded, query: 'SELECT * FROM payroll' },
        })
      ).status,
      403,
    );
    const saved = await s.request('POST', '/api/v1/queries', {
      as: admin,
      body: { name: 'Head count', dataSourceId: guarded, query: 'SELECT count(*) AS people FROM payroll' },
    });
    assert.equal(saved.status, 201);
    const run = await s.request('POST', `/api/v1/queries/${saved.body.id}/run`, { as: viewer, body: {} });
    assert.equal(run.status, 200);
    assert.deepEqual(run.body.rows, [{ people: '2' }]);
    assert.equal(
      (await s.request('PUT', `/api/v1/queries/${saved.body.id}`, { as: editor, body: { name: 'People' } })).status,
      200,
      'renaming writes no SQL',
    );
    const rewrite = await s.request('PUT', `/api/v1/queries/${saved.body.id}`, {
      as: editor,
      body: { query: 'SELECT * FROM payroll' },
    });
    assert.equal(rewrite.status, 403);
    const moved = await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'Mine', dataSourceId: open, query: 'SELECT * FROM payroll' },
    });
    const move = await s.request('PUT', `/api/v1/queries/${moved.body.id}`, {
      as: editor,
      body: { dataSourceId: guarded },
    });
    assert.equal(move.status, 403, 'moving SQL onto the guarded source is writing SQL on it');
    assert.match(move.body.error.message, /^dataSourceId: only admins/);
  });

  test("a dashboard's widget SQL on a guarded source: new or changed is for its role, kept is anyone's", async () => {
    const widget = (query: string) => ({
      id: 'pay',
      type: 'table',
      title: 'Pay',
      position: { x: 0, y: 0, w: 6, h: 4 },
      dataSourceId: guarded,
      query,
    });
    const refused = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'pay',
        title: 'Pay',
        definition: { layout, dataSources: [{ id: guarded }], widgets: [widget('SELECT * FROM payroll')] },
      },
    });
    assert.equal(refused.status, 403);
    assert.match(
      refused.body.error.message,
      /^definition\.widgets\[0\]\.query: only admins and owners write SQL on the data source "HR"/,
    );

    const made = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'pay',
        title: 'Pay',
        definition: {
          layout,
          dataSources: [{ id: guarded }],
          widgets: [widget('SELECT name FROM payroll ORDER BY name')],
        },
      },
    });
    assert.equal(made.status, 201);
    const id = made.body.id;
    const current = (await s.request('GET', `/api/v1/dashboards/${id}`, { as: editor })).body;
    assert.equal(
      (await s.request('PUT', `/api/v1/dashboards/${id}`, { as: editor, body: { title: 'Pay (names)' } })).status,
      200,
    );
    const same = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: editor,
      body: { definition: { ...current.definition, widgets: [{ ...current.definition.widgets[0], title: 'Names' }] } },
    });
    assert.equal(same.status, 200, 'moving or retitling a widget keeps its SQL');
    const changed = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: editor,
      body: { definition: { ...current.definition, widgets: [widget('SELECT * FROM payroll')] } },
    });
    assert.equal(changed.status, 403);
    const drawn = await s.request('POST', `/api/v1/dashboards/${id}/widgets/pay/run`, { as: viewer, body: {} });
    assert.equal(drawn.status, 200, 'a viewer still sees the widget');
    assert.deepEqual(drawn.body.rows, [{ name: 'ada' }, { name: 'bob' }]);

    // Restoring version 1 brings back SQL the editor did not write (it differs from the current): an admin's to do.
    const adminEdit = await s.request('PUT', `/api/v1/dashboards/${id}`, {
      as: admin,
      body: { definition: { ...current.definition, widgets: [widget('SELECT count(*) AS n FROM payroll')] } },
    });
    assert.equal(adminEdit.status, 200);
    assert.equal((await s.request('POST', `/api/v1/dashboards/${id}/versions/1/restore`, { as: editor })).status, 403);
    assert.equal((await s.request('POST', `/api/v1/dashboards/${id}/versions/1/restore`, { as: admin })).status, 200);

    const imported = await s.request('POST', '/api/v1/dashboards/import', {
      as: editor,
      body: {
        dashboards: [
          {
            slug: 'pay-copy',
            title: 'Pay copy',
            definition: {
              layout,
              widgets: [
                {
                  id: 'pay',
                  type: 'table',
                  position: { x: 0, y: 0, w: 6, h: 4 },
                  dataSource: 'hr',
                  query: 'SELECT * FROM payroll',
                },
              ],
            },
          },
        ],
      },
    });
    assert.equal(imported.status, 403, 'an import brings SQL too');
    assert.equal((await s.request('GET', '/api/v1/dashboards?search=copy', { as: editor })).body.meta.total, 0);
  });
});
