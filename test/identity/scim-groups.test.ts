import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { managementApi, startServer, type Server } from './support.ts';
import { ERROR_URN, oktaUser, patchOf, scimClient, type ScimAnswer } from './scim-support.ts';

/**
 * SCIM Groups as organizations (src/identity/scim/groups.ts): Okta's group push (create with members, rename, members
 * removed by a value path), Entra ID's membership PATCH (a value list to remove), PUT, DELETE; each change an
 * organization or membership change of the platform, recorded; only the connection's own people as members.
 */
const ADMIN_TOKEN = 'scim-groups-admin-token-0123456789abcdef';
const GROUP_URN = 'urn:ietf:params:scim:schemas:core:2.0:Group';
let server: Server;
let token: string;

const admin = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const scim = scimClient(
  () => server.issuer,
  () => token,
);

before(async () => {
  server = await startServer('idscimgroups', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  token = (await admin('/scim-connections', { method: 'POST', body: { name: 'Okta' } })).body.token;
});
after(async () => server?.close());

function assertScimError(r: ScimAnswer, status: number, scimType?: string): void {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(r.body.schemas, [ERROR_URN], r.text);
  assert.equal(r.body.scimType, scimType, r.text);
}

async function person(email: string): Promise<string> {
  const r = await scim('/Users', { method: 'POST', body: oktaUser(email) });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** The organization's active members as the management API lists them. */
async function orgMembers(orgId: string): Promise<string[]> {
  const r = await admin(`/organizations/${orgId}/members?active=true`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items.map((m: any) => m.principal_id).sort();
}

test('Okta’s group push: an organization with members, renamed, a member removed by value path, deleted', async () => {
  const a = await person('a@groups.example');
  const b = await person('b@groups.example');
  const created = await scim('/Groups', {
    method: 'POST',
    body: { schemas: [GROUP_URN], displayName: 'Sales EMEA', members: [{ value: a, display: 'a' }, { value: b }] },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.id;
  assert.equal(created.headers.get('location'), `${server.issuer}/scim/v2/Groups/${id}`);
  assert.deepEqual(created.body.members.map((m: any) => m.value).sort(), [a, b].sort());
  assert.equal(created.body.members.find((m: any) => m.value === a).display, 'Ada Lovelace');

  const org = await admin(`/organizations/${id}`);
  assert.equal(org.status, 200, 'the group is an organization of the platform');
  assert.equal(org.body.name, 'Sales EMEA');
  assert.match(org.body.slug, /^sales-emea-[0-9a-f]{6}$/);
  assert.deepEqual(await orgMembers(id), [a, b].sort());

  const found = await scim(
    `/Groups?filter=${encodeURIComponent('displayName eq "sales emea"')}&excludedAttributes=members`,
  );
  assert.equal(found.body.totalResults, 1);
  assert.equal(found.body.Resources[0].members, undefined, 'excludedAttributes=members');
  const byMember = await scim(`/Groups?filter=${encodeURIComponent(`members[value eq "${a}"]`)}`);
  assert.deepEqual(
    byMember.body.Resources.map((g: any) => g.id),
    [id],
  );

  // Okta renames with no path and the group's id beside the name, and removes members by a value path.
  const renamed = await scim(`/Groups/${id}`, {
    method: 'PATCH',
    body: patchOf(
      { op: 'replace', value: { id, displayName: 'Sales Europe' } },
      { op: 'remove', path: `members[value eq "${a}"]` },
    ),
  });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.body.displayName, 'Sales Europe');
  assert.deepEqual(
    renamed.body.members.map((m: any) => m.value),
    [b],
  );
  assert.equal((await admin(`/organizations/${id}`)).body.name, 'Sales Europe');
  assert.deepEqual(await orgMembers(id), [b]);

  const log = (await admin(`/admin-log?actor=scim&target_id=${id}`)).body.items.map((e: any) => [e.action, e.event]);
  assert.deepEqual(log, [
    ['organization.member.delete', 'membership.changed'],
    ['organization.update', null],
    ['organization.member.create', 'membership.changed'],
    ['organization.member.create', 'membership.changed'],
    ['organization.create', null],
  ]);

  assert.equal((await scim(`/Groups/${id}`, { method: 'DELETE' })).status, 204);
  assertScimError(await scim(`/Groups/${id}`), 404);
  assert.equal(
    (await admin(`/organizations/${id}`)).body.active,
    false,
    'the organization is deactivated, not deleted',
  );
});

test('Entra ID’s membership PATCH: "Add" and "Remove" with a value list; PUT replaces the members', async () => {
  const a = await person('ea@groups.example');
  const b = await person('eb@groups.example');
  const c = await person('ec@groups.example');
  const id = (await scim('/Groups', { method: 'POST', body: { schemas: [GROUP_URN], displayName: 'Engineering' } }))
    .body.id;
  const added = await scim(`/Groups/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'Add', path: 'members', value: [{ value: a }, { value: b }] }),
  });
  assert.equal(added.status, 200, added.text);
  assert.deepEqual(await orgMembers(id), [a, b].sort());
  await scim(`/Groups/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'Remove', path: 'members', value: [{ value: a }] }),
  });
  assert.deepEqual(await orgMembers(id), [b]);
  // Back again: the membership kept on record is made active.
  await scim(`/Groups/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'add', path: 'members', value: [{ value: a }] }),
  });
  assert.deepEqual(await orgMembers(id), [a, b].sort());

  // A person an admin added in the console is not the directory's: a PUT leaves them be.
  const local = await server.createHuman('local@groups.example', 'a password long enough');
  assert.equal(
    (await admin(`/organizations/${id}/members`, { method: 'POST', body: { principal_id: local } })).status,
    201,
  );
  const put = await scim(`/Groups/${id}`, {
    method: 'PUT',
    body: { schemas: [GROUP_URN], displayName: 'Engineering', members: [{ value: c }] },
  });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(
    put.body.members.map((m: any) => m.value),
    [c],
  );
  assert.deepEqual(await orgMembers(id), [c, local].sort());
});

test('bad group bodies and members outside the connection are 400 in SCIM’s shape; nothing half done', async () => {
  const a = await person('ga@groups.example');
  const post = (body: unknown) => scim('/Groups', { method: 'POST', body });
  assertScimError(await post({ displayName: 'x' }), 400, 'invalidSyntax');
  assertScimError(await post({ schemas: [GROUP_URN] }), 400, 'invalidValue');
  assertScimError(await post({ schemas: [GROUP_URN], displayName: 'x'.repeat(201) }), 400, 'invalidValue');
  assertScimError(await post({ schemas: [GROUP_URN], displayName: 'x', owner: 'me' }), 400, 'invalidSyntax');
  assertScimError(
    await post({ schemas: [GROUP_URN], displayName: 'x', members: [{ value: 'nope' }] }),
    400,
    'invalidValue',
  );
  assertScimError(await post({ schemas: [GROUP_URN], displayName: 'x', members: 'a' }), 400, 'invalidValue');
  const local = await server.createHuman('not-provisioned@groups.example', 'a password long enough');
  assertScimError(
    await post({ schemas: [GROUP_URN], displayName: 'Foreign', members: [{ value: a }, { value: local }] }),
    400,
    'invalidValue',
  );
  assert.equal(
    (await server.runtime.db.query("SELECT 1 FROM organizations WHERE name = 'Foreign'")).rowCount,
    0,
    'no organization made',
  );
  const id = (await post({ schemas: [GROUP_URN], displayName: 'Kept', members: [{ value: a }] })).body.id;
  const patch = (...ops: unknown[]) => scim(`/Groups/${id}`, { method: 'PATCH', body: patchOf(...ops) });
  assertScimError(await patch({ op: 'remove', path: 'displayName' }), 400, 'mutability');
  assertScimError(await patch({ op: 'add', path: 'members[value eq "x"]', value: [] }), 400, 'invalidPath');
  assertScimError(await patch({ op: 'replace', path: 'owners', value: 'x' }), 400, 'invalidPath');
  assertScimError(await patch({ op: 'remove' }), 400, 'noTarget');
  assertScimError(
    await patch(
      { op: 'replace', path: 'displayName', value: 'Renamed' },
      { op: 'add', path: 'members', value: [{ value: local }] },
    ),
    400,
    'invalidValue',
  );
  const now = await scim(`/Groups/${id}`);
  assert.equal(now.body.displayName, 'Kept', 'all or none');
  assertScimError(await scim('/Groups/00000000-0000-4000-8000-000000000000'), 404);
  assertScimError(await scim(`/Groups?filter=${encodeURIComponent('owner eq "x"')}`), 400, 'invalidFilter');

  const other = (await admin('/scim-connections', { method: 'POST', body: { name: 'Other' } })).body.token;
  assertScimError(await scim(`/Groups/${id}`, { token: other }), 404);
  assert.equal((await scim('/Groups', { token: other })).body.totalResults, 0);
});
