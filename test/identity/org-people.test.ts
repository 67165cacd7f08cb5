import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';

/**
 * `/api/v1/organizations/:id/people` (src/identity/organizations/people-routes.ts): an organization's members with who
 * they are, and adding one by the email or identifier an admin knows them by (what the console's Organizations screen
 * uses instead of principal ids).
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
let server: Server;
let orgId: string;
let ada: string;
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

before(async () => {
  server = await startServer('idorgpeople', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  ada = await server.createHuman('Ada@Example.com', 'a long enough passphrase');
  const org = await api('/organizations', { method: 'POST', body: { name: 'Acme', slug: 'acme' } });
  assert.equal(org.status, 201, JSON.stringify(org.body));
  orgId = org.body.id;
});
after(async () => server?.close());

test('a person is added by email in any case, listed with their name and email, and added once only', async () => {
  const added = await api(`/organizations/${orgId}/people`, {
    method: 'POST',
    body: { identifier: '  ADA@example.COM ', role: 'admin' },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.principal_id, ada);
  assert.equal(added.body.role, 'admin');
  assert.equal(added.body.active, true);
  assert.deepEqual(added.body.principal, {
    id: ada,
    type: 'human',
    identifier: 'ada@example.com',
    display_name: 'ada@example.com',
    email: 'ada@example.com',
    active: true,
  });

  const again = await api(`/organizations/${orgId}/people`, {
    method: 'POST',
    body: { identifier: 'ada@example.com' },
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'CONFLICT');
  assert.match(again.body.error.message, /is a member already/);

  const listed = await api(`/organizations/${orgId}/people?active=true`);
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.body.items.map((m: any) => [m.principal.email, m.role]),
    [['ada@example.com', 'admin']],
  );
  assert.equal(listed.body.next, null);
});

test('a removed member rejoins with the role given (200), and the list can show removed members', async () => {
  const removed = await api(`/organizations/${orgId}/members/${ada}`, { method: 'DELETE' });
  assert.equal(removed.status, 200);
  assert.equal((await api(`/organizations/${orgId}/people?active=true`)).body.items.length, 0);
  const inactive = await api(`/organizations/${orgId}/people?active=false`);
  assert.deepEqual(
    inactive.body.items.map((m: any) => m.principal_id),
    [ada],
  );

  const back = await api(`/organizations/${orgId}/people`, {
    method: 'POST',
    body: { identifier: 'ada@example.com', role: 'viewer' },
  });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.equal(back.body.role, 'viewer');
  assert.equal(back.body.active, true);
});

test('a service principal is added by its identifier; pages follow principal ids', async () => {
  const svc = await api('/principals', {
    method: 'POST',
    body: { type: 'service', name: 'billing-worker', service_type: 'worker' },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  const added = await api(`/organizations/${orgId}/people`, {
    method: 'POST',
    body: { identifier: 'billing-worker' },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.role, 'member');
  assert.equal(added.body.principal.type, 'service');
  assert.equal(added.body.principal.email, null);

  const first = await api(`/organizations/${orgId}/people?limit=1`);
  assert.equal(first.body.items.length, 1);
  assert.ok(first.body.next);
  const second = await api(`/organizations/${orgId}/people?limit=1&cursor=${first.body.next}`);
  assert.equal(second.body.items.length, 1);
  assert.equal(second.body.next, null);
  assert.deepEqual([first.body.items[0].principal_id, second.body.items[0].principal_id], [ada, svc.body.id].sort());
});

test('bad inputs: unknown person 404, blank or hostile identifier and bad role 400, deactivated organization 409', async () => {
  const unknown = await api(`/organizations/${orgId}/people`, {
    method: 'POST',
    body: { identifier: 'nobody@example.com' },
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'NOT_FOUND');
  assert.match(unknown.body.error.message, /nobody@example\.com/);

  for (const body of [{ identifier: '   ' }, { identifier: 'ada@example.com', role: 'no spaces allowed' }, {}]) {
    const refused = await api(`/organizations/${orgId}/people`, { method: 'POST', body });
    assert.equal(refused.status, 400, JSON.stringify(body));
    assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
  }
  const badCursor = await api(`/organizations/${orgId}/people?cursor=not-ours`);
  assert.equal(badCursor.status, 400);
  const noOrg = await api('/organizations/00000000-0000-4000-8000-000000000000/people');
  assert.equal(noOrg.status, 404);

  const off = await api('/organizations', { method: 'POST', body: { name: 'Gone', slug: 'gone' } });
  assert.equal((await api(`/organizations/${off.body.id}`, { method: 'PATCH', body: { active: false } })).status, 200);
  const closed = await api(`/organizations/${off.body.id}/people`, {
    method: 'POST',
    body: { identifier: 'ada@example.com' },
  });
  assert.equal(closed.status, 409);
  assert.match(closed.body.error.message, /deactivated/);
});
