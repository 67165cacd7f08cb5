import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { managementApi, startServer, type Server } from './support.ts';
import {
  ERROR_URN,
  USER_URN,
  introspector,
  patchOf,
  scimClient,
  signedInTokens,
  type ScimAnswer,
} from './scim-support.ts';

/**
 * SCIM PATCH (RFC 7644 3.5.2) as Microsoft Entra ID sends it: ops in any case ("Replace"), booleans as text ("False"),
 * `emails[type eq "work"].value` paths, no path with an object of attributes, attributes named with the core URN, the
 * enterprise extension; all operations or none; every malformed operation a 400 in SCIM's shape.
 */
const ADMIN_TOKEN = 'scim-patch-admin-token-0123456789abcdef';
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
  server = await startServer('idscimpatch', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  token = (await admin('/scim-connections', { method: 'POST', body: { name: 'Entra ID' } })).body.token;
});
after(async () => server?.close());

/** A User as Entra ID creates one: both schemas, the enterprise extension, `roles`, `meta`. */
async function entraUser(email: string): Promise<string> {
  const r = await scim('/Users', {
    method: 'POST',
    body: {
      schemas: [USER_URN, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: email,
      active: true,
      emails: [{ primary: true, type: 'work', value: email }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Alex Wilber', familyName: 'Wilber', givenName: 'Alex' },
      roles: [],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Sales', employeeNumber: '42' },
    },
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

const patch = (id: string, ...ops: unknown[]) => scim(`/Users/${id}`, { method: 'PATCH', body: patchOf(...ops) });

function assertScimError(r: ScimAnswer, status: number, scimType?: string): void {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(r.body.schemas, [ERROR_URN], r.text);
  assert.equal(r.body.status, String(status));
  assert.equal(r.body.scimType, scimType, r.text);
}

test('Entra ID’s deactivation: "Replace" with the text "False", then "True"; the person’s token stops and comes back', async () => {
  const email = 'alex@contoso.example';
  const id = await entraUser(email);
  const password = 'alex has a long password';
  await admin(`/principals/${id}/password`, { method: 'PUT', body: { password } });
  const { tokens } = await signedInTokens(server, { email, password });
  const app = await server.registerApp({ name: 'RS', appType: 'machine', allowedScopes: [], resourceServer: true });
  const introspect = introspector(server, app);
  assert.equal((await introspect(tokens.access_token)).active, true);

  const off = await patch(id, { op: 'Replace', path: 'active', value: 'False' });
  assert.equal(off.status, 200, off.text);
  assert.equal(off.body.active, false);
  assert.deepEqual(await introspect(tokens.access_token), { active: false });
  assert.equal((await admin(`/principals/${id}`)).body.active, false);

  // The older Entra ID form: no path, an object whose boolean is text.
  const on = await patch(id, { op: 'replace', value: { active: 'True' } });
  assert.equal(on.body.active, true);
  assert.equal((await introspect(tokens.access_token)).active, true, 'reactivated: the unexpired token counts again');
});

test('Entra ID’s updates: email and name paths, add where nothing was, the core URN, the extension ignored', async () => {
  const id = await entraUser('megan@contoso.example');
  const r = await patch(
    id,
    { op: 'Replace', path: 'emails[type eq "work"].value', value: 'megan.bowen@contoso.example' },
    { op: 'Replace', path: 'name.familyName', value: 'Bowen' },
    { op: 'Add', path: 'emails[type eq "home"].value', value: 'megan@home.example' },
    { op: 'Add', path: 'urn:ietf:params:scim:schemas:core:2.0:User:displayName', value: 'Megan B.' },
    { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' },
    { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0100' },
    { op: 'Add', path: 'title', value: 'Engineer' },
    { op: 'Replace', value: { 'name.givenName': 'Meg', externalId: 'e-2' } },
  );
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.emails, [
    { value: 'megan.bowen@contoso.example', type: 'work', primary: true },
    { value: 'megan@home.example', type: 'home' },
  ]);
  assert.deepEqual(r.body.name, { givenName: 'Meg', familyName: 'Bowen', formatted: 'Meg Bowen' });
  assert.equal(r.body.displayName, 'Megan B.');
  assert.equal(r.body.externalId, 'e-2');
  assert.equal(r.body.userName, 'megan@contoso.example', 'the sign-in email is userName, not the work address');
  const found = await scim(
    `/Users?filter=${encodeURIComponent('emails[type eq "work"].value eq "megan.bowen@contoso.example"')}`,
  );
  assert.deepEqual(
    found.body.Resources.map((u: any) => u.id),
    [id],
  );

  const removed = await patch(
    id,
    { op: 'Remove', path: 'emails[type eq "home"]' },
    { op: 'remove', path: 'externalId' },
    { op: 'remove', path: 'name.givenName' },
  );
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(
    removed.body.emails.map((e: any) => e.type),
    ['work'],
  );
  assert.equal(removed.body.externalId, undefined);
  assert.deepEqual(removed.body.name, { familyName: 'Bowen', formatted: 'Bowen' });

  // The same values again change nothing: no record, lastModified kept.
  const same = await patch(id, { op: 'Replace', path: 'name.familyName', value: 'Bowen' });
  assert.equal(same.body.meta.lastModified, removed.body.meta.lastModified);

  const renamed = await patch(id, { op: 'replace', path: 'userName', value: 'Megan.Bowen@Contoso.example' });
  assert.equal(renamed.body.userName, 'megan.bowen@contoso.example');
  assert.equal((await admin(`/principals/${id}`)).body.email, 'megan.bowen@contoso.example');
  const log = (await admin(`/admin-log?actor=scim&target_id=${id}&action=principal.update`)).body.items;
  assert.equal(log.length, 3, 'one record per PATCH that changed the profile');
  assert.deepEqual(log[0].before, { email: 'megan@contoso.example' });
});

test('a PATCH is all or none: a refused operation after good ones changes nothing', async () => {
  const id = await entraUser('atomic@contoso.example');
  const r = await patch(
    id,
    { op: 'replace', path: 'displayName', value: 'Changed' },
    { op: 'replace', path: 'active', value: false },
    { op: 'replace', path: 'nickName2', value: 'x' },
  );
  assertScimError(r, 400, 'invalidPath');
  const now = await scim(`/Users/${id}`);
  assert.equal(now.body.displayName, 'Alex Wilber');
  assert.equal(now.body.active, true);
});

test('malformed PATCH bodies and operations are 400 with the scimType that says why', async () => {
  const id = await entraUser('bad-patch@contoso.example');
  const raw = (body: unknown) => scim(`/Users/${id}`, { method: 'PATCH', body });
  assertScimError(await raw({ Operations: [{ op: 'replace', path: 'active', value: false }] }), 400, 'invalidSyntax');
  assertScimError(await raw(patchOf()), 400, 'invalidSyntax');
  assertScimError(await raw({ ...patchOf({ op: 'add' }), extra: 1 }), 400, 'invalidSyntax');
  assertScimError(await raw(patchOf('replace')), 400, 'invalidSyntax');
  assertScimError(await patch(id, { op: 'move', path: 'active', value: false }), 400, 'invalidSyntax');
  assertScimError(await patch(id, { op: 'replace', path: 'active', value: false, from: 'x' }), 400, 'invalidSyntax');
  assertScimError(await patch(id, { op: 'remove' }), 400, 'noTarget');
  assertScimError(await patch(id, { op: 'replace', path: 'active' }), 400, 'invalidValue');
  assertScimError(await patch(id, { op: 'replace', path: 'active', value: 'perhaps' }), 400, 'invalidValue');
  assertScimError(await patch(id, { op: 'replace', value: 'active' }), 400, 'invalidValue');
  assertScimError(await patch(id, { op: 'remove', path: 'userName' }), 400, 'mutability');
  assertScimError(await patch(id, { op: 'replace', path: 'id', value: 'x' }), 400, 'mutability');
  assertScimError(await patch(id, { op: 'replace', path: 'userName', value: 'not-an-email' }), 400, 'invalidValue');
  assertScimError(await patch(id, { op: 'replace', path: 'displayName', value: 'x'.repeat(201) }), 400, 'invalidValue');
  assertScimError(
    await patch(id, { op: 'replace', path: 'emails[type eq "work"].colour', value: 'x' }),
    400,
    'invalidPath',
  );
  assertScimError(
    await patch(id, { op: 'replace', path: 'emails[value eq "x"].value', value: 'a@b.example' }),
    400,
    'noTarget',
  );
  assertScimError(
    await patch(id, { op: 'replace', path: 'emails[type eq ]', value: 'a@b.example' }),
    400,
    'invalidFilter',
  );
  assertScimError(
    await patch(id, { op: 'replace', path: 'name.givenName[type eq "x"]', value: 'a' }),
    400,
    'invalidPath',
  );
  assertScimError(await patch(id, { op: 'replace', path: 'a b', value: 'a' }), 400, 'invalidPath');
  assertScimError(await patch(id, { op: 'replace', path: 42, value: 'a' }), 400, 'invalidPath');
  assertScimError(await patch(id, { op: 'replace', path: 'displayName', value: 'a\u0000b' }), 400, 'invalidValue');
  assertScimError(
    await raw(patchOf(...Array.from({ length: 101 }, () => ({ op: 'add', path: 'title', value: 'x' })))),
    400,
    'tooMany',
  );
  assertScimError(
    await patch(id, { op: 'add', path: 'emails', value: [{ value: 'a@x.example', primary: true }] }),
    400,
    'invalidValue',
  );
  assertScimError(await scim(`/Users/${id}`, { method: 'PATCH', raw: '{"Operations": [' }), 400, 'invalidSyntax');
  assertScimError(
    await patch('00000000-0000-4000-8000-000000000000', { op: 'replace', path: 'active', value: false }),
    404,
  );
  // A password set through PATCH signs in; it is never answered or recorded.
  const pw = await patch(id, { op: 'replace', path: 'password', value: 'a new long password' });
  assert.equal(pw.status, 200, pw.text);
  assert.equal(pw.body.password, undefined);
  const entry = (await admin(`/admin-log?actor=scim&target_id=${id}&action=principal.update`)).body.items[0];
  assert.equal(entry.after.password, '[redacted]');
  assertScimError(await patch(id, { op: 'replace', path: 'password', value: 'short' }), 400, 'invalidValue');
});
