import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestBrowser } from './browser.ts';
import { signInAt } from './account-support.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { runIdentityCommand } from './run-command.ts';
import {
  ERROR_URN,
  introspector,
  oktaUser,
  patchOf,
  scimClient,
  signedInTokens,
  type ScimAnswer,
} from './scim-support.ts';

/**
 * Adopting existing people (src/identity/scim/adopt.ts, docs/identity.md "SCIM provisioning"): a connection an admin
 * let adopt links a person the platform had before, on the directory's POST or after its userName match, leaving their
 * password, sessions and tokens be; a connection that may not, a platform admin, a deactivated person and another
 * connection's person are 409 as before; adoption is recorded; the setting is the management API's and the CLI's.
 */
const ADMIN_TOKEN = 'scim-adopt-admin-token-0123456789abcdef';
let server: Server;
let adopting: { id: string; token: string };
let plain: { id: string; token: string };
let resourceServer: { clientId: string; secret: string | undefined };

const admin = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const viaAdopting = scimClient(
  () => server.issuer,
  () => adopting.token,
);
const viaPlain = scimClient(
  () => server.issuer,
  () => plain.token,
);

async function connection(name: string, adopt?: boolean) {
  const made = await admin('/scim-connections', {
    method: 'POST',
    body: { name, ...(adopt === undefined ? {} : { adopt_existing: adopt }) },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { id: made.body.connection.id as string, token: made.body.token as string, view: made.body.connection };
}

before(async () => {
  server = await startServer('idscimadopt', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  adopting = await connection('Okta (adopting)', true);
  plain = await connection('Entra ID (not adopting)');
  resourceServer = await server.registerApp({
    name: 'Resource server',
    appType: 'machine',
    allowedScopes: [],
    resourceServer: true,
  });
});
after(async () => server?.close());

function assertConflict(r: ScimAnswer, detail: RegExp): void {
  assert.equal(r.status, 409, r.text);
  assert.deepEqual(r.body.schemas, [ERROR_URN]);
  assert.equal(r.body.scimType, 'uniqueness');
  assert.match(r.body.detail, detail);
}

const byUserName = (scim: typeof viaPlain, email: string) =>
  scim(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);

test('the setting: off unless asked, shown, changed by PATCH and recorded', async () => {
  assert.equal((await admin(`/scim-connections/${plain.id}`)).body.adopt_existing, false, 'off by default');
  assert.equal((await admin(`/scim-connections/${adopting.id}`)).body.adopt_existing, true);
  const other = await connection('OneLogin');
  const on = await admin(`/scim-connections/${other.id}`, { method: 'PATCH', body: { adopt_existing: true } });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  assert.equal(on.body.adopt_existing, true);
  assert.equal(on.body.name, 'OneLogin', 'what is left out stays');
  const renamed = await admin(`/scim-connections/${other.id}`, { method: 'PATCH', body: { name: 'OneLogin (Acme)' } });
  assert.deepEqual([renamed.body.name, renamed.body.adopt_existing], ['OneLogin (Acme)', true]);
  assert.equal((await admin(`/scim-connections/${other.id}`, { method: 'PATCH', body: {} })).status, 400);
  const log = (await admin(`/admin-log?action=scim-connection.update&target_id=${other.id}`)).body.items;
  assert.deepEqual(
    log.map((e: any) => e.after),
    [{ name: 'OneLogin (Acme)' }, { adopt_existing: true }],
  );
  assert.equal(
    (await admin('/scim-connections/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: { name: 'x' } }))
      .status,
    404,
  );
});

test('adoption off: an existing person is 409 as before, and neither the filter nor their id finds them', async () => {
  const id = await server.createHuman('before-okta@acme.example', 'a password long enough');
  assertConflict(
    await viaPlain('/Users', { method: 'POST', body: oktaUser('before-okta@acme.example') }),
    /did not provision.*an admin may let the connection adopt/,
  );
  assert.equal((await byUserName(viaPlain, 'before-okta@acme.example')).body.totalResults, 0);
  assert.equal((await viaPlain(`/Users/${id}`)).status, 404);
  const patch = await viaPlain(`/Users/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'replace', value: { active: false } }),
  });
  assert.equal(patch.status, 404, patch.text);
  assert.equal((await admin(`/principals/${id}`)).body.active, true);
});

test('adoption on: POST links the person, their password, session and tokens stay; PATCH active false deactivates', async () => {
  const email = 'signed-up-first@acme.example';
  const password = 'the password they chose';
  const id = await server.createHuman(email, password);
  const { tokens } = await signedInTokens(server, { email, password });
  const introspect = introspector(server, resourceServer);
  const sessions = () =>
    server.runtime.db.query('SELECT 1 FROM login_sessions WHERE principal_id = $1', [id]).then((r) => r.rowCount);
  assert.ok((await sessions())! > 0);

  // Okta's match first: the filter answers the person it could adopt, nothing is linked by it.
  const match = await byUserName(viaAdopting, email.toUpperCase());
  assert.equal(match.body.totalResults, 1, match.text);
  assert.equal(match.body.Resources[0].id, id);
  assert.equal(match.body.Resources[0].externalId, undefined, 'not linked: no externalId yet');
  assert.equal((await admin(`/scim-connections/${adopting.id}`)).body.people, 0, 'the match links nobody');
  assert.equal((await viaAdopting(`/Users/${id}`)).body.id, id, 'their id answers too');

  const created = await viaAdopting('/Users', { method: 'POST', body: oktaUser(email) });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.id, id, 'the same person');
  assert.equal(created.headers.get('location'), `${server.issuer}/scim/v2/Users/${id}`);
  assert.equal(created.body.externalId, oktaUser(email).externalId);
  assert.equal(created.body.displayName, 'Ada Lovelace', 'the directory’s values applied as a PUT would');
  assert.equal(created.body.active, true);
  assert.equal((await admin(`/scim-connections/${adopting.id}`)).body.people, 1);

  // Adoption changed nothing else about them.
  assert.equal((await introspect(tokens.access_token)).active, true, 'their tokens count');
  assert.ok((await sessions())! > 0, 'their session stays');
  const signedIn = await signInAt(server.issuer, new TestBrowser(), '/account/password', { email, password });
  assert.doesNotMatch(signedIn.html, /<h1>Sign in<\/h1>/, 'their password still signs in');

  // Recorded as its own action, with the connection as the actor, then the values as an update.
  const log = (await admin(`/admin-log?target_id=${id}&actor=scim`)).body.items;
  assert.deepEqual(
    log.map((e: any) => [e.action, e.actor.kind, e.actor.id]),
    [
      ['principal.update', 'scim', adopting.id],
      ['principal.adopt', 'scim', adopting.id],
    ],
  );
  assert.deepEqual(log[1].after, { scim_connection_id: adopting.id, external_id: oktaUser(email).externalId });

  // The person is now the connection's: a second POST is 409, and PATCH active false deactivates them.
  assertConflict(
    await viaAdopting('/Users', { method: 'POST', body: oktaUser(email) }),
    /this connection provisioned this person already/,
  );
  const off = await viaAdopting(`/Users/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'replace', value: { active: false } }),
  });
  assert.equal(off.status, 200, off.text);
  assert.deepEqual(await introspect(tokens.access_token), { active: false });
  assert.equal(await sessions(), 0);
  assert.equal((await admin(`/principals/${id}`)).body.active, false);
  // Another connection still does not see them.
  assert.equal((await viaPlain(`/Users/${id}`)).status, 404);
});

test('Entra ID’s match then PATCH: the PATCH adopts the person it matched, then applies its change', async () => {
  const id = await server.createHuman('entra-match@acme.example', 'a password long enough');
  const match = await byUserName(viaAdopting, 'entra-match@acme.example');
  assert.equal(match.body.Resources[0].id, id);
  const patched = await viaAdopting(`/Users/${id}`, {
    method: 'PATCH',
    body: patchOf({ op: 'replace', path: 'externalId', value: 'entra-oid-1' }),
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.externalId, 'entra-oid-1');
  const actions = (await admin(`/admin-log?target_id=${id}`)).body.items.map((e: any) => e.action);
  assert.deepEqual(actions, ['principal.update', 'principal.adopt']);
  assert.equal((await byUserName(viaAdopting, 'entra-match@acme.example')).body.Resources[0].externalId, 'entra-oid-1');
});

test('only an exact userName match answers people not linked: no list, no other filter shows them', async () => {
  await server.createHuman('quiet@acme.example', 'a password long enough');
  const all = await viaAdopting('/Users');
  assert.ok(!all.text.includes('quiet@acme.example'), 'an unfiltered list shows the connection’s people only');
  for (const filter of [
    'userName co "quiet"',
    'userName sw "quiet@"',
    'userName eq "quiet@acme.example" or active eq true',
  ]) {
    const r = await viaAdopting(`/Users?filter=${encodeURIComponent(filter)}`);
    assert.equal(r.status, 200, r.text);
    assert.ok(!r.text.includes('quiet@acme.example'), filter);
  }
  const exact = await byUserName(viaAdopting, 'quiet@acme.example');
  assert.equal(exact.body.totalResults, 1);
  const past = await viaAdopting(
    `/Users?filter=${encodeURIComponent('userName eq "quiet@acme.example"')}&startIndex=2`,
  );
  assert.deepEqual([past.body.totalResults, past.body.Resources.length], [1, 0], 'paged as any list');
});

test('never adopted: a platform admin, a deactivated person, another connection’s person', async () => {
  const adminId = await server.createHuman('it-admin@acme.example', 'a password long enough', true);
  assertConflict(
    await viaAdopting('/Users', { method: 'POST', body: oktaUser('it-admin@acme.example') }),
    /platform admin, whom a SCIM connection never adopts/,
  );
  assert.equal((await byUserName(viaAdopting, 'it-admin@acme.example')).body.totalResults, 0);
  assert.equal((await viaAdopting(`/Users/${adminId}`)).status, 404);
  const patch = await viaAdopting(`/Users/${adminId}`, {
    method: 'PATCH',
    body: patchOf({ op: 'replace', value: { active: false } }),
  });
  assert.equal(patch.status, 404, patch.text);
  assert.equal((await admin(`/principals/${adminId}`)).body.active, true, 'the admin is untouched');

  const goneId = await server.createHuman('shut-out@acme.example', 'a password long enough');
  assert.equal((await admin(`/principals/${goneId}/deactivate`, { method: 'POST' })).status, 200);
  assertConflict(
    await viaAdopting('/Users', { method: 'POST', body: oktaUser('shut-out@acme.example') }),
    /deactivated person, whom a SCIM connection never adopts/,
  );
  assert.equal((await byUserName(viaAdopting, 'shut-out@acme.example')).body.totalResults, 0);
  assert.equal((await admin(`/principals/${goneId}`)).body.active, false, 'still deactivated');

  const theirs = await viaPlain('/Users', { method: 'POST', body: oktaUser('entra-made@acme.example') });
  assert.equal(theirs.status, 201, theirs.text);
  assertConflict(
    await viaAdopting('/Users', { method: 'POST', body: oktaUser('entra-made@acme.example') }),
    /another SCIM connection provisioned this person/,
  );
  assert.equal((await byUserName(viaAdopting, 'entra-made@acme.example')).body.totalResults, 0);
  assert.equal((await viaAdopting(`/Users/${theirs.body.id}`)).status, 404);
  assert.equal((await admin(`/admin-log?action=principal.adopt&target_id=${adminId}`)).body.items.length, 0);
});

test('the CLI: scim create --adopt-existing, scim update --adopt-existing off, recorded with the actor command', async () => {
  const cli = (...args: string[]) => runIdentityCommand(server.env, args);
  const made = await cli('scim', 'create', '--name', 'JumpCloud', '--adopt-existing', '--json');
  assert.equal(made.code, 0, made.err.join('\n'));
  const { connection } = JSON.parse(made.out.join('\n'));
  assert.equal(connection.adopt_existing, true);
  const off = await cli('scim', 'update', connection.id, '--adopt-existing', 'off');
  assert.equal(off.code, 0, off.err.join('\n'));
  assert.match(off.out.join('\n'), /adopts existing people: off/);
  assert.equal((await admin(`/scim-connections/${connection.id}`)).body.adopt_existing, false);
  assert.equal((await cli('scim', 'update', connection.id, '--adopt-existing', 'maybe')).code, 2);
  assert.equal((await cli('scim', 'update', connection.id)).code, 2);
  const log = (await admin(`/admin-log?target_id=${connection.id}`)).body.items;
  assert.deepEqual(
    log.map((e: any) => [e.action, e.actor.kind, e.after]),
    [
      ['scim-connection.update', 'command', { adopt_existing: false }],
      ['scim-connection.create', 'command', { name: 'JumpCloud', adopt_existing: true }],
    ],
  );
  const help = await cli('scim', 'update', '--help');
  assert.match([...help.out, ...help.err].join('\n'), /never a platform admin/);
});
