import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestBrowser } from './browser.ts';
import { signInAt } from './account-support.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { runIdentityCommand } from './run-command.ts';
import {
  ERROR_URN,
  USER_URN,
  introspector,
  oktaUser,
  patchOf,
  scimClient,
  signedInTokens,
  type ScimAnswer,
} from './scim-support.ts';

/**
 * SCIM 2.0 provisioning (src/identity/scim/, docs/identity.md "SCIM provisioning"): a directory's sequence as Okta
 * sends it, with its real effects on the person (their tokens, sessions and sign-in), PUT, DELETE, paging, the
 * connections' tokens, and every kind of bad input answered in SCIM's error shape, never a 500.
 */
const ADMIN_TOKEN = 'scim-test-admin-token-0123456789abcdef';
let server: Server;
let token: string;
let connectionId: string;
let resourceServer: { clientId: string; secret: string | undefined };

const admin = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const scim = scimClient(
  () => server.issuer,
  () => token,
);

before(async () => {
  server = await startServer('idscim', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  const made = await admin('/scim-connections', { method: 'POST', body: { name: 'Okta (Acme)' } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  token = made.body.token;
  connectionId = made.body.connection.id;
  resourceServer = await server.registerApp({
    name: 'Resource server',
    appType: 'machine',
    allowedScopes: [],
    resourceServer: true,
  });
});
after(async () => server?.close());

function assertScimError(r: ScimAnswer, status: number, scimType?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(String(r.headers.get('content-type')), /^application\/scim\+json/, r.text);
  assert.deepEqual(r.body.schemas, [ERROR_URN], r.text);
  assert.equal(r.body.status, String(status), r.text);
  assert.equal(r.body.scimType, scimType, r.text);
  assert.equal(typeof r.body.detail, 'string');
}

const byUserName = (email: string) => scim(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);

async function provision(email: string, more: Record<string, unknown> = {}): Promise<string> {
  const r = await scim('/Users', { method: 'POST', body: oktaUser(email, more) });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

test('Okta’s sequence: create, find by userName, deactivate (tokens, sessions and sign-in stop), reactivate', async () => {
  const email = 'ada@acme.example';
  // Okta looks the person up before creating them.
  const none = await byUserName(email);
  assert.equal(none.status, 200, none.text);
  assert.deepEqual(none.body, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: 0,
    startIndex: 1,
    itemsPerPage: 0,
    Resources: [],
  });

  const created = await scim('/Users', { method: 'POST', body: oktaUser(email) });
  assert.equal(created.status, 201, created.text);
  assert.match(String(created.headers.get('content-type')), /^application\/scim\+json/);
  const id = created.body.id;
  assert.equal(created.headers.get('location'), `${server.issuer}/scim/v2/Users/${id}`);
  assert.deepEqual(created.body.schemas, [USER_URN]);
  assert.equal(created.body.userName, email);
  assert.deepEqual(created.body.name, { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' });
  assert.equal(created.body.displayName, 'Ada Lovelace');
  assert.equal(created.body.externalId, oktaUser(email).externalId);
  assert.equal(created.body.active, true);
  assert.equal(created.body.meta.resourceType, 'User');
  assert.equal(created.body.password, undefined);

  // The platform's person: a human signing in by this email, as the management API shows them.
  const person = await admin(`/principals/${id}`);
  assert.equal(person.status, 200);
  assert.equal(person.body.type, 'human');
  assert.equal(person.body.email, email);
  assert.equal(person.body.display_name, 'Ada Lovelace');

  const found = await byUserName('ADA@Acme.Example');
  assert.equal(found.body.totalResults, 1, 'userName is compared in any case');
  assert.equal(found.body.Resources[0].id, id);

  // The person signs in (an admin set their password) and holds tokens and a session.
  const password = 'a long password for ada';
  assert.equal((await admin(`/principals/${id}/password`, { method: 'PUT', body: { password } })).status, 204);
  const { tokens, browser } = await signedInTokens(server, { email, password });
  const introspect = introspector(server, resourceServer);
  assert.equal((await introspect(tokens.access_token)).active, true);
  const sessions = () =>
    server.runtime.db.query('SELECT 1 FROM login_sessions WHERE principal_id = $1', [id]).then((r) => r.rowCount);
  assert.ok((await sessions())! > 0, 'signed in: a login session');

  // Okta deactivates by PATCH.
  const off = await scim(`/Users/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'replace', value: { active: false } }),
  });
  assert.equal(off.status, 200, off.text);
  assert.equal(off.body.active, false);
  assert.deepEqual(await introspect(tokens.access_token), { active: false }, 'the access token stopped counting');
  assert.deepEqual(await introspect(tokens.refresh_token!), { active: false }, 'the refresh token too');
  assert.equal(await sessions(), 0, 'the login sessions ended');
  const account = await browser.follow(`${server.issuer}/account/password`, 'about:never');
  assert.match(account.html, /<h1>Sign in<\/h1>/, 'the browser is signed out');
  const refused = await signInAt(server.issuer, new TestBrowser(), '/account/password', { email, password });
  assert.match(refused.html, /<h1>Sign in<\/h1>/, 'the password no longer signs in');
  assert.equal((await admin(`/principals/${id}`)).body.active, false, 'the platform’s person is deactivated');

  // Recorded as the management API's deactivation is, with the connection as the actor, and its webhook event.
  const log = await admin(`/admin-log?actor=scim&target_id=${id}`);
  assert.deepEqual(
    log.body.items.map((e: any) => [e.action, e.event, e.actor.kind, e.actor.id, e.actor.name]),
    [
      ['principal.deactivate', 'principal.deactivated', 'scim', connectionId, 'Okta (Acme)'],
      ['principal.create', 'principal.created', 'scim', connectionId, 'Okta (Acme)'],
    ],
  );
  assert.deepEqual(log.body.items[0].before, { active: true });

  // And back.
  const on = await scim(`/Users/${id}`, { method: 'PATCH', body: patchOf({ op: 'replace', value: { active: true } }) });
  assert.equal(on.body.active, true);
  const again = await signInAt(server.issuer, new TestBrowser(), '/account/password', { email, password });
  assert.doesNotMatch(again.html, /<h1>Sign in<\/h1>/, 'signing in works again');
  assert.equal(
    (await admin(`/admin-log?actor=${connectionId}&target_id=${id}`)).body.items[0].action,
    'principal.activate',
  );
});

test('PUT replaces the attributes: a name left out is cleared, a new userName is the new sign-in email', async () => {
  const id = await provision('grace@acme.example');
  const put = await scim(`/Users/${id}`, {
    method: 'PUT',
    body: {
      schemas: [USER_URN],
      userName: 'grace.hopper@acme.example',
      name: { givenName: 'Grace' },
      externalId: 'g1',
    },
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.userName, 'grace.hopper@acme.example');
  assert.deepEqual(put.body.name, { givenName: 'Grace', formatted: 'Grace' });
  assert.equal(put.body.displayName, 'Grace', 'no displayName: the names make it');
  assert.deepEqual(put.body.emails, [{ value: 'grace.hopper@acme.example', type: 'work', primary: true }]);
  assert.equal(put.body.active, true, 'active left out is kept');
  assert.equal(put.body.externalId, 'g1');
  const person = (await admin(`/principals/${id}`)).body;
  assert.equal(person.email, 'grace.hopper@acme.example');
  assert.equal(person.identifier, 'grace.hopper@acme.example');
  const log = (await admin(`/admin-log?action=principal.update&target_id=${id}`)).body.items[0];
  assert.equal(log.actor.kind, 'scim');
  assert.equal(log.event, 'principal.updated');
  assert.equal(log.before.email, 'grace@acme.example');
  assert.equal(log.after.email, 'grace.hopper@acme.example');
  assert.deepEqual([log.before.given_name, log.after.given_name], ['Ada', 'Grace']);
  assert.equal(log.after.family_name, null);
  assert.ok(!('active' in log.after), 'only what changed is recorded');

  const unknown = await scim('/Users/00000000-0000-4000-8000-000000000000', {
    method: 'PUT',
    body: oktaUser('x@acme.example'),
  });
  assertScimError(unknown, 404);
});

test('DELETE deactivates the person and hides them; the same userName provisioned again brings them back', async () => {
  const id = await provision('linus@acme.example');
  const del = await scim(`/Users/${id}`, { method: 'DELETE' });
  assert.equal(del.status, 204, del.text);
  assertScimError(await scim(`/Users/${id}`), 404);
  assertScimError(await scim(`/Users/${id}`, { method: 'DELETE' }), 404);
  assert.equal((await byUserName('linus@acme.example')).body.totalResults, 0);
  assert.equal((await admin(`/principals/${id}`)).body.active, false, 'deactivated, never deleted');

  const back = await scim('/Users', {
    method: 'POST',
    body: oktaUser('linus@acme.example', { name: { givenName: 'L' } }),
  });
  assert.equal(back.status, 201, back.text);
  assert.equal(back.body.id, id, 'the same person');
  assert.equal(back.body.active, true);
  assert.deepEqual(back.body.name, { givenName: 'L', formatted: 'L' });
});

test('a userName someone signs in with already is 409 uniqueness, whoever made them', async () => {
  await provision('twice@acme.example');
  assertScimError(await scim('/Users', { method: 'POST', body: oktaUser('Twice@acme.example') }), 409, 'uniqueness');
  await server.createHuman('console-made@acme.example', 'a password long enough');
  assertScimError(
    await scim('/Users', { method: 'POST', body: oktaUser('console-made@acme.example') }),
    409,
    'uniqueness',
  );
  const id = await provision('renamed@acme.example');
  assertScimError(
    await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: patchOf({ op: 'replace', path: 'userName', value: 'twice@acme.example' }),
    }),
    409,
    'uniqueness',
  );
});

test('paging by startIndex and count, with totalResults', async () => {
  const emails = ['p1', 'p2', 'p3', 'p4', 'p5'].map((p) => `${p}@paging.example`);
  for (const e of emails) await provision(e);
  const page = (q: string) => scim(`/Users?filter=${encodeURIComponent('userName ew "@paging.example"')}&${q}`);
  const first = await page('startIndex=1&count=2');
  assert.equal(first.body.totalResults, 5);
  assert.equal(first.body.itemsPerPage, 2);
  assert.deepEqual(
    first.body.Resources.map((u: any) => u.userName),
    emails.slice(0, 2),
  );
  const last = await page('startIndex=5&count=2');
  assert.deepEqual(
    last.body.Resources.map((u: any) => u.userName),
    emails.slice(4),
  );
  assert.equal(last.body.startIndex, 5);
  const counted = await page('count=0');
  assert.equal(counted.body.totalResults, 5);
  assert.deepEqual(counted.body.Resources, []);
  const low = await page('startIndex=0&count=-4');
  assert.equal(low.body.startIndex, 1, 'startIndex below 1 is 1');
  assert.equal(low.body.itemsPerPage, 0, 'a negative count is 0');
  assert.equal((await page('count=100000')).body.itemsPerPage, 5, 'count above the most is lowered to it');
  assertScimError(await page('startIndex=first'), 400, 'invalidValue');
  const some = await page('count=1&attributes=userName');
  assert.deepEqual(Object.keys(some.body.Resources[0]).sort(), ['id', 'schemas', 'userName']);
});

test('filters: externalId, emails value paths, and, or, not; an unreadable or unknown one is 400 invalidFilter', async () => {
  const id = await provision('filter@acme.example', {
    externalId: 'ext-Filter',
    emails: [
      { value: 'filter@acme.example', type: 'work', primary: true },
      { value: 'home@filter.example', type: 'home' },
    ],
  });
  const ids = async (filter: string) => {
    const r = await scim(`/Users?filter=${encodeURIComponent(filter)}`);
    assert.equal(r.status, 200, `${filter}: ${r.text}`);
    return r.body.Resources.map((u: any) => u.id);
  };
  assert.deepEqual(await ids('externalId eq "ext-Filter"'), [id]);
  assert.deepEqual(await ids('externalId eq "ext-filter"'), [], 'externalId is compared exactly');
  const plus = await scim('/Users?filter=externalId+eq+%22ext-Filter%22');
  assert.deepEqual(
    plus.body.Resources.map((u: any) => u.id),
    [id],
    'spaces sent as + (Entra ID does)',
  );
  assert.deepEqual(await ids('emails[type eq "work"].value eq "FILTER@acme.example"'), [id]);
  assert.deepEqual(await ids('emails[type eq "work"].value eq "home@filter.example"'), [], 'the same address');
  assert.deepEqual(await ids('emails[type eq "home"].value eq "home@filter.example"'), [id]);
  assert.deepEqual(await ids('emails.value eq "home@filter.example"'), [id]);
  assert.deepEqual(await ids('userName eq "filter@acme.example" and externalId eq "ext-Filter"'), [id]);
  assert.deepEqual(await ids('userName eq "filter@acme.example" and externalId eq "other"'), []);
  assert.deepEqual(await ids('(userName eq "nobody@x.example" or externalId eq "ext-Filter") and active eq true'), [
    id,
  ]);
  assert.deepEqual(
    await ids('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "filter@" and not (active eq false)'),
    [id],
  );

  for (const [filter, why] of [
    ['userName eq', 'no value'],
    ['userName eq "x" extra', 'trailing words'],
    ['(userName eq "x"', 'an unclosed parenthesis'],
    ['title eq "x"', 'an attribute not filtered'],
    ['userName gt "a"', 'an operator the attribute does not take'],
    ['active eq "yes"', 'a value of the wrong type'],
    ['userName eq 5', 'a number for a string'],
    ['phoneNumbers[type eq "work"].value eq "1"', 'a multi-valued attribute not kept'],
    [`userName eq "${'\n'.repeat(40)}`, 'line breaks (the parser would backtrack for ages)'],
    [`userName eq "${'a'.repeat(1001)}"`, 'too long'],
  ]) {
    const started = Date.now();
    const r = await scim(`/Users?filter=${encodeURIComponent(filter!)}`);
    assertScimError(r, 400, 'invalidFilter');
    assert.ok(Date.now() - started < 2000, `${why}: answered at once`);
  }
});

test('bad bodies are 400 (or 409, 413, 415) in SCIM’s shape, never a 500', async () => {
  const post = (body: unknown) => scim('/Users', { method: 'POST', body });
  assertScimError(await scim('/Users', { method: 'POST', raw: '{"schemas": [' }), 400, 'invalidSyntax');
  assertScimError(await scim('/Users', { method: 'POST', raw: '' }), 400, 'invalidSyntax');
  assertScimError(await post([oktaUser('a@x.example')]), 400, 'invalidSyntax');
  assertScimError(await post({ userName: 'noschemas@x.example' }), 400, 'invalidSyntax');
  assertScimError(await post(oktaUser('colour@x.example', { favouriteColour: 'teal' })), 400, 'invalidSyntax');
  assertScimError(await post(oktaUser('n@x.example', { name: { nickname: 'x' } })), 400, 'invalidSyntax');
  assertScimError(await post(oktaUser('t@x.example', { userName: 42 })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { userName: 'not an email' })), 400, 'invalidValue');
  assertScimError(await post({ schemas: [USER_URN] }), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { active: 'maybe' })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { emails: 't@x.example' })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { emails: [{ value: 'nope' }] })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { displayName: 'd'.repeat(201) })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { externalId: { id: 1 } })), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { password: 'short' })), 400, 'invalidValue');
  assertScimError(
    await post(
      oktaUser('t@x.example', {
        emails: [
          { value: 'a@x.example', primary: true },
          { value: 'b@x.example', primary: 'True' },
        ],
      }),
    ),
    400,
    'invalidValue',
  );
  assertScimError(await post(oktaUser('nul\u0000@x.example')), 400, 'invalidValue');
  assertScimError(await post(oktaUser('t@x.example', { displayName: 'a\u0000b' })), 400, 'invalidValue');
  const big = await scim('/Users', {
    method: 'POST',
    body: oktaUser('big@x.example', { title: 'x'.repeat(70 * 1024) }),
  });
  assert.equal(big.status, 413, big.text);
  assert.deepEqual(big.body.schemas, [ERROR_URN]);
  const plain = await scim('/Users', { method: 'POST', raw: 'userName=x', contentType: 'text/plain' });
  assert.equal(plain.status, 415, plain.text);
  assert.deepEqual(plain.body.schemas, [ERROR_URN]);
  assertScimError(await scim('/Users/not-a-uuid'), 404);
  assertScimError(await scim('/Nothing'), 404);

  // Accepted as they are: application/json, attributes of the core schema not kept, the enterprise extension.
  const kept = await scim('/Users', {
    method: 'POST',
    contentType: 'application/json',
    body: oktaUser('extra@x.example', {
      title: 'Engineer',
      phoneNumbers: [{ value: '+1 555', type: 'work' }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
      id: 'ignored',
      meta: { resourceType: 'User' },
    }),
  });
  assert.equal(kept.status, 201, kept.text);
  assert.equal(kept.body.title, undefined);
  assert.notEqual(kept.body.id, 'ignored');
});

test('only a live token of the connection opens its people: no token, the admin’s, another connection’s, a revoked one', async () => {
  const id = await provision('scoped@acme.example');
  const nobody = await scim('/Users', { token: null });
  assertScimError(nobody, 401);
  assert.match(String(nobody.headers.get('www-authenticate')), /^Bearer realm="scim"/);
  assertScimError(await scim('/Users', { token: ADMIN_TOKEN }), 401);
  assertScimError(await scim('/ServiceProviderConfig', { token: 'scim_not-a-token' }), 401);
  // Refused before the body is read.
  assertScimError(await scim('/Users', { method: 'POST', raw: '{"not json', token: null }), 401);

  const other = await admin('/scim-connections', { method: 'POST', body: { name: 'Entra (Globex)' } });
  const otherToken: string = other.body.token;
  assertScimError(await scim(`/Users/${id}`, { token: otherToken }), 404);
  assertScimError(
    await scim(`/Users/${id}`, {
      token: otherToken,
      method: 'PATCH',
      body: patchOf({ op: 'replace', path: 'active', value: false }),
    }),
    404,
  );
  assertScimError(await scim(`/Users/${id}`, { token: otherToken, method: 'DELETE' }), 404);
  const list = await scim('/Users', { token: otherToken });
  assert.equal(list.body.totalResults, 0, 'another connection sees none of these people');
  assertScimError(
    await scim('/Users', { token: otherToken, method: 'POST', body: oktaUser('scoped@acme.example') }),
    409,
    'uniqueness',
  );
  assert.equal((await admin(`/principals/${id}`)).body.active, true);

  const rotated = await admin(`/scim-connections/${other.body.connection.id}/rotate`, { method: 'POST' });
  assert.equal(rotated.status, 201);
  assertScimError(await scim('/Users', { token: otherToken }), 401);
  assert.equal((await scim('/Users', { token: rotated.body.token })).status, 200);
  const revoked = await admin(`/scim-connections/${other.body.connection.id}/revoke`, { method: 'POST' });
  assert.equal(revoked.status, 200);
  assert.ok(revoked.body.revoked_at);
  assertScimError(await scim('/Users', { token: rotated.body.token }), 401);
  assert.equal((await admin(`/scim-connections/${other.body.connection.id}/revoke`, { method: 'POST' })).status, 409);
});

test('connections: the token is shown once, stored as a hash, never in the change log', async () => {
  const made = await admin('/scim-connections', { method: 'POST', body: { name: 'OneLogin' } });
  assert.equal(made.status, 201);
  assert.match(made.body.token, /^scim_[A-Za-z0-9_-]{43}$/);
  assert.equal(made.body.connection.base_url, `${server.issuer}/scim/v2`);
  assert.equal(made.body.connection.token_prefix, made.body.token.slice(0, 13));
  const listed = await admin('/scim-connections');
  assert.ok(listed.body.items.some((c: any) => c.id === made.body.connection.id && c.name === 'OneLogin'));
  assert.ok(!JSON.stringify(listed.body).includes(made.body.token));
  const mine = listed.body.items.find((c: any) => c.id === connectionId);
  assert.ok(mine.people > 0);
  assert.ok(mine.last_used_at);
  const stored = await server.runtime.db.query('SELECT * FROM scim_connections');
  assert.ok(!JSON.stringify(stored.rows).includes(made.body.token), 'only the hash is stored');
  const log = await server.runtime.db.query('SELECT * FROM admin_changes');
  assert.ok(!JSON.stringify(log.rows).includes(made.body.token), 'never in the change log');
  const entry = (await admin(`/admin-log?target_id=${made.body.connection.id}`)).body.items[0];
  assert.equal(entry.action, 'scim-connection.create');
  assertScimError(await scim('/Users', { token: made.body.token.slice(0, -1) }), 401);
  assert.equal((await admin('/scim-connections', { method: 'POST', body: { name: ' ' } })).status, 400);
});

test('discovery: ServiceProviderConfig, ResourceTypes and Schemas', async () => {
  const spc = await scim('/ServiceProviderConfig');
  assert.equal(spc.status, 200);
  assert.match(String(spc.headers.get('content-type')), /^application\/scim\+json/);
  assert.equal(spc.body.patch.supported, true);
  assert.equal(spc.body.bulk.supported, false);
  assert.equal(spc.body.filter.maxResults, 200);
  assert.equal(spc.body.authenticationSchemes[0].type, 'oauthbearertoken');
  const types = await scim('/ResourceTypes');
  assert.deepEqual(
    types.body.Resources.map((t: any) => t.id),
    ['User', 'Group'],
  );
  const schemas = await scim('/Schemas');
  assert.deepEqual(
    schemas.body.Resources.map((s: any) => s.id),
    [USER_URN, 'urn:ietf:params:scim:schemas:core:2.0:Group'],
  );
  const user = await scim(`/Schemas/${USER_URN}`);
  assert.ok(user.body.attributes.some((a: any) => a.name === 'userName' && a.required));
  assertScimError(await scim('/Schemas/urn:nothing'), 404);
});

test('the command line makes, lists, rotates and revokes connections, recorded with the actor command', async () => {
  const cli = (...args: string[]) => runIdentityCommand(server.env, args);
  const made = await cli('scim', 'create', '--name', 'JumpCloud', '--json');
  assert.equal(made.code, 0, made.err.join('\n'));
  const { connection, token: printed } = JSON.parse(made.out.join('\n'));
  assert.equal(connection.base_url, `${server.issuer}/scim/v2`);
  assert.equal((await scim('/ServiceProviderConfig', { token: printed })).status, 200, 'the printed token opens SCIM');

  const exported = await cli('scim', 'rotate', connection.id, '--export');
  assert.equal(exported.code, 0, exported.err.join('\n'));
  const rotated = /^export SCIM_TOKEN='(scim_[^']+)'$/m.exec(exported.out.join('\n'))?.[1];
  assert.ok(rotated, exported.out.join('\n'));
  assert.match(exported.out.join('\n'), new RegExp(`^export SCIM_CONNECTION_ID='${connection.id}'$`, 'm'));
  assertScimError(await scim('/ServiceProviderConfig', { token: printed }), 401);

  const listed = await cli('scim', 'list');
  assert.match(listed.out.join('\n'), /JumpCloud/);
  assert.ok(!listed.out.join('\n').includes(rotated), 'a list never shows a token');

  assert.equal((await cli('scim', 'revoke', connection.id)).code, 0);
  assertScimError(await scim('/ServiceProviderConfig', { token: rotated }), 401);
  const again = await cli('scim', 'revoke', connection.id);
  assert.equal(again.code, 1, 'revoked already: the command failed');
  assert.equal((await cli('scim', 'revoke', 'not-an-id')).code, 2, 'a usage mistake');

  const log = (await admin(`/admin-log?actor=command&target_id=${connection.id}`)).body.items;
  assert.deepEqual(
    log.map((e: any) => e.action),
    ['scim-connection.revoke', 'scim-connection.rotate', 'scim-connection.create'],
  );
  const rows = JSON.stringify((await server.runtime.db.query('SELECT * FROM admin_changes')).rows);
  assert.ok(!rows.includes(printed) && !rows.includes(rotated), 'no token in the change log');
});
