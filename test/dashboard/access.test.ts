import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const definition = { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] };

interface Route {
  method: string;
  path: string;
  minRole: 'viewer' | 'editor' | 'admin' | 'owner';
  body?: unknown;
  /** The route names a record of the caller's tenant in its path. */
  scoped: boolean;
}

describe('roles and tenants at every route', () => {
  let s: DashboardServer;
  const as: Record<string, SignedIn> = {};
  let outsider: SignedIn;
  let routes: Route[];
  before(async () => {
    s = await startDashboard('dashaccess');
    for (const role of ['viewer', 'editor', 'admin', 'owner'] as const)
      as[role] = await s.signIn({ tenant: 'acme', role });
    outsider = await s.signIn({ tenant: 'globex', role: 'owner' });
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: as.editor,
      body: { slug: 'target', title: 'Target', definition },
    });
    const tenant = (await s.request('GET', '/api/v1/admin/tenants', { as: as.owner })).body.items[0];
    const dash = `/api/v1/dashboards/${d.body.id}`;
    const user = `/api/v1/admin/users/${as.viewer.userId}`;
    routes = [
      { method: 'GET', path: '/api/v1/auth/me', minRole: 'viewer', scoped: false },
      { method: 'GET', path: '/api/v1/dashboards', minRole: 'viewer', scoped: false },
      { method: 'GET', path: dash, minRole: 'viewer', scoped: true },
      { method: 'GET', path: `${dash}/versions`, minRole: 'viewer', scoped: true },
      { method: 'GET', path: `${dash}/versions/1`, minRole: 'viewer', scoped: true },
      {
        method: 'POST',
        path: '/api/v1/dashboards',
        minRole: 'editor',
        body: { slug: 'new-one', title: 'N', definition },
        scoped: false,
      },
      { method: 'PUT', path: dash, minRole: 'editor', body: { title: 'Changed' }, scoped: true },
      { method: 'POST', path: `${dash}/versions/1/restore`, minRole: 'editor', scoped: true },
      { method: 'DELETE', path: dash, minRole: 'editor', scoped: true },
      { method: 'GET', path: '/api/v1/admin/users', minRole: 'admin', scoped: false },
      { method: 'GET', path: user, minRole: 'admin', scoped: true },
      {
        method: 'POST',
        path: '/api/v1/admin/users',
        minRole: 'admin',
        body: { email: 'new@acme.example', name: 'New', role: 'viewer' },
        scoped: false,
      },
      { method: 'PATCH', path: user, minRole: 'admin', body: { role: 'viewer' }, scoped: true },
      { method: 'DELETE', path: user, minRole: 'admin', scoped: true },
      { method: 'GET', path: '/api/v1/audit', minRole: 'admin', scoped: false },
      { method: 'GET', path: '/api/v1/admin/tenants', minRole: 'owner', scoped: false },
      {
        method: 'POST',
        path: '/api/v1/admin/tenants',
        minRole: 'owner',
        body: { slug: 'fresh', name: 'Fresh', plan: 'pro' },
        scoped: false,
      },
      { method: 'GET', path: `/api/v1/admin/tenants/${tenant.id}`, minRole: 'owner', scoped: true },
      {
        method: 'PATCH',
        path: `/api/v1/admin/tenants/${tenant.id}`,
        minRole: 'owner',
        body: { name: 'Acme Inc' },
        scoped: true,
      },
    ];
  });
  after(async () => s?.close());

  const ORDER = ['viewer', 'editor', 'admin', 'owner'];

  test("a role below the route's is 403 FORBIDDEN, before the body is looked at", async () => {
    let checked = 0;
    for (const r of routes) {
      for (const role of ORDER.slice(0, ORDER.indexOf(r.minRole))) {
        for (const body of r.body === undefined ? [undefined] : [r.body, { nonsense: true }]) {
          const res = await s.request(r.method, r.path, { as: as[role], body });
          assert.equal(res.status, 403, `${role} ${r.method} ${r.path}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error.code, 'FORBIDDEN');
          checked++;
        }
      }
    }
    assert.ok(checked >= 30);
  });

  test('a user of another tenant gets 404 NOT_FOUND for every record of this tenant', async () => {
    for (const r of routes.filter((x) => x.scoped)) {
      const res = await s.request(r.method, r.path, { as: outsider, body: r.body });
      assert.equal(res.status, 404, `${r.method} ${r.path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    // Lists show only the caller's own tenant.
    const list = await s.request('GET', '/api/v1/dashboards', { as: outsider });
    assert.equal(list.body.meta.total, 0);
    const users = await s.request('GET', '/api/v1/admin/users', { as: outsider });
    assert.deepEqual(
      users.body.items.map((u: any) => u.email),
      [outsider.email],
    );
    const audit = await s.request('GET', '/api/v1/audit', { as: outsider });
    assert.ok(audit.body.items.every((e: any) => e.userId === null || e.userId === outsider.userId));
  });

  test("without a token every route is 401, with the document's body", async () => {
    for (const r of routes) {
      const res = await s.request(r.method, r.path, { body: r.body });
      assert.equal(res.status, 401, `${r.method} ${r.path}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
    }
    // Open routes.
    assert.equal((await s.request('GET', '/health')).status, 200);
    assert.equal((await s.request('GET', '/openapi.json')).status, 200);
    assert.equal((await s.request('GET', '/metrics')).status, 200);
    assert.equal((await s.request('GET', '/api/v1/nowhere')).status, 404);
  });

  test('each route at its own role succeeds', async () => {
    for (const r of routes) {
      const res = await s.request(r.method, r.path, { as: as[r.minRole], body: r.body });
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${r.minRole} ${r.method} ${r.path}: ${res.status} ${JSON.stringify(res.body)}`,
      );
    }
  });
});
