import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

describe('users and tenants', () => {
  let s: DashboardServer;
  let owner: SignedIn;
  let admin: SignedIn;
  before(async () => {
    s = await startDashboard('dashusers');
    owner = await s.signIn({ tenant: 'acme', role: 'owner' });
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  });
  after(async () => s?.close());

  test('create, list and read users; a duplicate email in the tenant is 409', async () => {
    const r = await s.request('POST', '/api/v1/admin/users', {
      as: admin,
      body: { email: 'Dana@Acme.example', name: 'Dana', role: 'editor' },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['active', 'createdAt', 'email', 'id', 'lastLoginAt', 'name', 'role']);
    assert.equal(r.body.active, true);
    assert.equal(r.body.lastLoginAt, null);
    const dup = await s.request('POST', '/api/v1/admin/users', {
      as: admin,
      body: { email: 'dana@acme.example', name: 'Dana 2', role: 'viewer' },
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'CONFLICT');
    const list = await s.request('GET', '/api/v1/admin/users?limit=2', { as: admin });
    assert.equal(list.body.items.length, 2);
    assert.ok(list.body.next);
    const rest = await s.request('GET', `/api/v1/admin/users?limit=2&cursor=${list.body.next}`, { as: admin });
    assert.ok(rest.body.items.some((u: any) => u.id === r.body.id));
  });

  test('every field of the user routes wrong in turn is 400', async () => {
    const good = { email: 'x@acme.example', name: 'X', role: 'viewer' };
    for (const body of [
      { ...good, email: undefined },
      { ...good, email: 'not-an-email' },
      { ...good, email: 'a b@c' },
      { ...good, email: `${'a'.repeat(250)}@b.cd` },
      { ...good, email: 7 },
      { ...good, name: undefined },
      { ...good, name: '' },
      { ...good, name: ' ' },
      { ...good, name: 'x'.repeat(201) },
      { ...good, name: 'a\u0000' },
      { ...good, role: undefined },
      { ...good, role: 'superuser' },
      { ...good, role: 'Admin' },
      { ...good, active: false },
      [],
    ]) {
      const r = await s.request('POST', '/api/v1/admin/users', { as: admin, body: JSON.parse(JSON.stringify(body)) });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
    for (const body of [{}, { role: 'root' }, { active: 'maybe' }, { role: 'viewer', email: 'x@y.z' }]) {
      const r = await s.request('PATCH', `/api/v1/admin/users/${admin.userId}`, { as: admin, body });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    for (const id of ['0', '-1', 'abc', '1.5', '99999999999999999999']) {
      assert.equal((await s.request('GET', `/api/v1/admin/users/${id}`, { as: admin })).status, 400, id);
      assert.equal((await s.request('DELETE', `/api/v1/admin/users/${id}`, { as: admin })).status, 400, id);
    }
    assert.equal((await s.request('GET', '/api/v1/admin/users?limit=0', { as: admin })).status, 400);
    assert.equal((await s.request('GET', '/api/v1/admin/users?cursor=abc', { as: admin })).status, 400);
    assert.equal((await s.request('GET', '/api/v1/admin/users/424242', { as: admin })).status, 404);
  });

  test('PATCH renames a user: a trimmed, non-blank name of at most 200 characters, recorded in the audit log', async () => {
    const made = await s.request('POST', '/api/v1/admin/users', {
      as: admin,
      body: { email: 'erin@acme.example', name: 'erin', role: 'viewer' },
    });
    const path = `/api/v1/admin/users/${made.body.id}`;
    for (const name of ['', '   ', 'x'.repeat(201), 'a\u0000b', 'line\nbreak', 7, null]) {
      const r = await s.request('PATCH', path, { as: admin, body: { name } });
      assert.equal(r.status, 400, JSON.stringify(name));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, /name/);
    }
    const renamed = await s.request('PATCH', path, { as: admin, body: { name: '  Erin Example  ' } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.name, 'Erin Example');
    assert.equal(renamed.body.role, 'viewer');
    assert.equal((await s.request('GET', path, { as: admin })).body.name, 'Erin Example');
    const longest = await s.request('PATCH', path, { as: admin, body: { name: 'é'.repeat(200), role: 'editor' } });
    assert.equal(longest.status, 200);
    assert.deepEqual([longest.body.name, longest.body.role], ['é'.repeat(200), 'editor']);
    const records = (await s.request('GET', '/api/v1/audit?action=user.rename', { as: admin })).body.items;
    assert.deepEqual(
      records.map((r: { details: unknown }) => r.details),
      [
        { from: 'Erin Example', to: 'é'.repeat(200) },
        { from: 'erin', to: 'Erin Example' },
      ],
    );
    // An admin may not change an owner, their name included.
    assert.equal(
      (await s.request('PATCH', `/api/v1/admin/users/${owner.userId}`, { as: admin, body: { name: 'Boss' } })).status,
      403,
    );
  });

  test('a role change applies at once to tokens already issued', async () => {
    const ed = await s.signIn({ tenant: 'acme', role: 'editor' });
    const definition = { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] };
    assert.equal(
      (await s.request('POST', '/api/v1/dashboards', { as: ed, body: { slug: 'by-ed', title: 'E', definition } }))
        .status,
      201,
    );
    const demote = await s.request('PATCH', `/api/v1/admin/users/${ed.userId}`, {
      as: admin,
      body: { role: 'viewer' },
    });
    assert.equal(demote.status, 200);
    assert.equal(demote.body.role, 'viewer');
    assert.equal(
      (await s.request('POST', '/api/v1/dashboards', { as: ed, body: { slug: 'by-ed-2', title: 'E', definition } }))
        .status,
      403,
    );
  });

  test("a deactivated user's access and refresh tokens stop working at once; reactivation needs a new sign-in", async () => {
    const v = await s.signIn({ tenant: 'acme', role: 'viewer' });
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: v })).status, 200);
    const del = await s.request('DELETE', `/api/v1/admin/users/${v.userId}`, { as: admin });
    assert.equal(del.status, 204);
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: v })).status, 401);
    assert.equal(
      (await s.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: v.refreshToken } })).status,
      401,
    );
    const got = await s.request('GET', `/api/v1/admin/users/${v.userId}`, { as: admin });
    assert.equal(got.body.active, false);
    const back = await s.request('PATCH', `/api/v1/admin/users/${v.userId}`, { as: admin, body: { active: true } });
    assert.equal(back.body.active, true);
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: v })).status, 401);
    const audit = await s.request('GET', `/api/v1/audit?targetType=user`, { as: admin });
    const actions = audit.body.items.filter((e: any) => e.targetId === String(v.userId)).map((e: any) => e.action);
    assert.deepEqual(actions, ['user.reactivate', 'user.deactivate', 'user.create']);
  });

  test('admins cannot make or touch owners; the last active owner stays', async () => {
    const r = await s.request('POST', '/api/v1/admin/users', {
      as: admin,
      body: { email: 'o2@acme.example', name: 'O2', role: 'owner' },
    });
    assert.equal(r.status, 403);
    assert.equal(
      (await s.request('PATCH', `/api/v1/admin/users/${owner.userId}`, { as: admin, body: { role: 'viewer' } })).status,
      403,
    );
    assert.equal((await s.request('DELETE', `/api/v1/admin/users/${owner.userId}`, { as: admin })).status, 403);
    assert.equal(
      (await s.request('PATCH', `/api/v1/admin/users/${admin.userId}`, { as: admin, body: { role: 'owner' } })).status,
      403,
    );
    const last = await s.request('PATCH', `/api/v1/admin/users/${owner.userId}`, {
      as: owner,
      body: { role: 'admin' },
    });
    assert.equal(last.status, 409);
    assert.equal(last.body.error.code, 'CONFLICT');
    assert.equal((await s.request('DELETE', `/api/v1/admin/users/${owner.userId}`, { as: owner })).status, 400);
    assert.equal(
      (await s.request('PATCH', `/api/v1/admin/users/${admin.userId}`, { as: admin, body: { active: false } })).status,
      400,
    );
    assert.equal((await s.request('DELETE', `/api/v1/admin/users/${admin.userId}`, { as: admin })).status, 400);
  });

  test('owners create tenants (becoming their owner), list, read and change them', async () => {
    const created = await s.request('POST', '/api/v1/admin/tenants', {
      as: owner,
      body: { slug: 'acme-eu', name: 'Acme EU', plan: 'pro' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.plan, 'pro');
    assert.equal(
      (
        await s.request('POST', '/api/v1/admin/tenants', {
          as: owner,
          body: { slug: 'acme-eu', name: 'Again', plan: 'pro' },
        })
      ).status,
      409,
    );
    const list = await s.request('GET', '/api/v1/admin/tenants', { as: owner });
    assert.deepEqual(list.body.items.map((t: any) => t.slug).sort(), ['acme', 'acme-eu']);
    const changed = await s.request('PATCH', `/api/v1/admin/tenants/${created.body.id}`, {
      as: owner,
      body: { plan: 'enterprise' },
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.plan, 'enterprise');
    assert.equal(changed.body.name, 'Acme EU');
    // The caller is the new tenant's owner and can sign in there.
    const pair = await s.token('acme-eu', owner.email);
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } });
    assert.equal(me.body.role, 'owner');
    for (const body of [
      { slug: 'Bad', name: 'x', plan: 'pro' },
      { slug: 'ok', name: '', plan: 'pro' },
      { slug: 'ok', name: 'x', plan: 'gold' },
      { name: 'x' },
      { slug: 'ok', name: 'x', billing: 1 },
    ]) {
      assert.equal(
        (await s.request('POST', '/api/v1/admin/tenants', { as: owner, body })).status,
        400,
        JSON.stringify(body),
      );
    }
    for (const body of [{}, { plan: 'platinum' }, { name: '' }, { slug: 'renamed' }]) {
      assert.equal(
        (await s.request('PATCH', `/api/v1/admin/tenants/${created.body.id}`, { as: owner, body })).status,
        400,
        JSON.stringify(body),
      );
    }
  });
});

describe('audit log queries', () => {
  let s: DashboardServer;
  let admin: SignedIn;
  before(async () => {
    s = await startDashboard('dashaudit');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  });
  after(async () => s?.close());

  test('pages newest first, filters, and refuses bad parameters', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (
          await s.request('POST', '/api/v1/admin/users', {
            as: admin,
            body: { email: `a${i}@acme.example`, name: `A${i}`, role: 'viewer' },
          })
        ).status,
        201,
      );
    }
    const first = await s.request('GET', '/api/v1/audit?limit=2&action=user.create', { as: admin });
    assert.equal(first.body.items.length, 2);
    assert.deepEqual(
      first.body.items.map((e: any) => e.details.email),
      ['a2@acme.example', 'a1@acme.example'],
    );
    assert.ok(first.body.items.every((e: any) => e.userId === admin.userId && typeof e.createdAt === 'string'));
    const rest = await s.request('GET', `/api/v1/audit?limit=2&action=user.create&cursor=${first.body.next}`, {
      as: admin,
    });
    assert.equal(rest.body.items[0].details.email, 'a0@acme.example');
    const byUser = await s.request('GET', `/api/v1/audit?userId=${admin.userId}&targetType=user`, { as: admin });
    assert.equal(byUser.body.items.length, 3);
    for (const q of [
      'limit=0',
      'limit=101',
      'cursor=x',
      'action=DROP%20TABLE',
      'targetType=a-b',
      'userId=0',
      'userId=x',
      `action=${'a'.repeat(101)}`,
    ]) {
      const r = await s.request('GET', `/api/v1/audit?${q}`, { as: admin });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
  });
});
