import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const definition = { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] };

interface Record {
  action: string;
  targetType: string;
  targetId: string | null;
  userId: number | null;
  userName: string | null;
  targetName: string | null;
  targetExists: boolean;
}

describe('the audit log names who acted and on what', () => {
  let s: DashboardServer;
  let admin: SignedIn;
  let editor: SignedIn;
  let otherAdmin: SignedIn;
  before(async () => {
    s = await startDashboard('dashauditnames');
    admin = await s.signIn({ tenant: 'acme', role: 'admin', name: 'Ada Admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eddie Editor' });
    otherAdmin = await s.signIn({ tenant: 'globex', role: 'admin' });
  });
  after(async () => s?.close());

  const log = async (as: SignedIn, query = ''): Promise<Record[]> => {
    const r = await s.request('GET', `/api/v1/audit?limit=100${query}`, { as });
    assert.equal(r.status, 200);
    return r.body.items;
  };

  test('a dashboard is named by its title now, and by the title its record kept once deleted', async () => {
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: { slug: 'q3', title: 'Q3 numbers', definition },
    });
    assert.equal(created.status, 201);
    const id = String(created.body.id);
    const renamed = await s.request('PUT', `/api/v1/dashboards/${id}`, { as: editor, body: { title: 'Q3 revenue' } });
    assert.equal(renamed.status, 200);

    const live = (await log(admin, '&targetType=dashboard')).filter((r) => r.targetId === id);
    assert.deepEqual(
      live.map((r) => r.action),
      ['dashboard.update', 'dashboard.create'],
    );
    for (const r of live) {
      assert.equal(r.targetName, 'Q3 revenue', 'the current title, also on the older record');
      assert.equal(r.targetExists, true);
      assert.equal(r.userName, 'Eddie Editor');
    }

    assert.equal((await s.request('DELETE', `/api/v1/dashboards/${id}`, { as: editor })).status, 204);
    const gone = (await log(admin, '&targetType=dashboard')).filter((r) => r.targetId === id);
    assert.deepEqual(
      gone.map((r) => [r.action, r.targetName, r.targetExists]),
      [
        ['dashboard.delete', 'Q3 revenue', false],
        // The older records kept no title of their own (an update records field names), so only the delete names it.
        ['dashboard.update', null, false],
        ['dashboard.create', 'Q3 numbers', false],
      ],
    );
  });

  test('users are named for the actor and the target; a data source deleted keeps its name', async () => {
    const added = await s.request('POST', '/api/v1/admin/users', {
      as: admin,
      body: { email: 'nina@acme.example', name: 'Nina New', role: 'viewer' },
    });
    assert.equal(added.status, 201);
    const record = (await log(admin, '&action=user.create')).find((r) => r.targetId === String(added.body.id));
    assert.ok(record);
    assert.equal(record.userName, 'Ada Admin');
    assert.equal(record.targetName, 'Nina New');
    assert.equal(record.targetExists, true);

    const source = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: {
        name: 'Old warehouse',
        slug: 'old-wh',
        type: 'postgres',
        connectionUrl: 'postgres://u:p@db.example:5432/x',
      },
    });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    assert.equal((await s.request('DELETE', `/api/v1/datasources/${source.body.id}`, { as: admin })).status, 204);
    const deleted = (await log(admin, '&action=datasource.delete')).find((r) => r.targetId === String(source.body.id));
    assert.ok(deleted);
    assert.equal(deleted.targetName, 'Old warehouse');
    assert.equal(deleted.targetExists, false);
  });

  test("another tenant's log names only its own", async () => {
    const mine = await log(otherAdmin);
    assert.ok(mine.length > 0);
    assert.ok(
      mine.every((r) => r.userName !== 'Ada Admin' && r.userName !== 'Eddie Editor' && r.targetName !== 'Nina New'),
    );
  });
});
