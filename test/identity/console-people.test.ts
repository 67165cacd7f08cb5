import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow, refreshTokens } from '../support/code-flow.ts';
import { freshCode } from './mfa-support.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';
import { createHuman } from '../../src/identity/principals/store.ts';

/**
 * What the console's People screens need beyond the principals API (src/identity/people): search people by name or
 * email; a person's sessions (list, end one, sign out everywhere); their second factors reset; their organization
 * memberships. Every change is recorded in admin_changes.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const CALLBACK = 'http://localhost:8765/callback';
const PASSWORD = 'correct horse battery staple';

describe('people management for the console', () => {
  let server: Server;
  let clientId: string;
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  const changesOf = async (id: string) =>
    (
      await server.runtime.db.query<Record<string, unknown>>(
        // What administrators did: the person's own sign-ins and second factors are on the record too, left out here.
        `SELECT actor_kind, action, target_type, target_id, before, after FROM admin_changes
          WHERE target_id = $1 AND action NOT LIKE 'signin.%' AND action NOT IN ('second_factor.add', 'second_factor.remove')
          ORDER BY id`,
        [id],
      )
    ).rows;
  const person = async (email: string, displayName: string, extra: { givenName?: string; familyName?: string } = {}) =>
    (
      await createHuman(server.runtime.db, {
        email,
        displayName,
        password: PASSWORD,
        emailVerified: true,
        ...extra,
      })
    ).id;
  const signIn = async (email: string, browser = new TestBrowser()) => {
    const got = await codeFlow(browser, {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: 'openid profile offline_access',
      credentials: { email, password: PASSWORD },
    });
    assert.equal(got.status, 200, JSON.stringify(got.tokens));
    return { browser, tokens: got.tokens };
  };

  before(async () => {
    server = await startServer('idconsolepeople', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    clientId = (
      await server.registerApp({ name: 'Portal', appType: 'spa', redirectUris: [CALLBACK], firstParty: true })
    ).clientId;
  });
  after(async () => server?.close());

  test('GET /people: people only, in name order, found by any part of a name or an email, a page at a time', async () => {
    await person('zoe@acme.example', 'Zoë Zimmer');
    await person('adam@acme.example', 'adam', { givenName: 'Adam', familyName: 'Okafor' });
    await person('maria@corp.example', 'María 50%_off');
    await server.registerApp({ name: 'Adam the robot', appType: 'machine' });
    const names = (body: { items: { display_name: string; type: string }[] }) =>
      body.items.map((p) => `${p.type}:${p.display_name}`);
    const all = await api('/people');
    assert.equal(all.status, 200);
    assert.deepEqual(names(all.body), ['human:adam', 'human:María 50%_off', 'human:Zoë Zimmer']);
    assert.equal(all.body.items[0].email, 'adam@acme.example');
    assert.deepEqual(names((await api('/people?q=OKAF')).body), ['human:adam']);
    assert.deepEqual(names((await api('/people?q=acme.example')).body), ['human:adam', 'human:Zoë Zimmer']);
    assert.deepEqual(names((await api(`/people?q=${encodeURIComponent('%_')}`)).body), ['human:María 50%_off']);
    assert.deepEqual(names((await api('/people?q=robot')).body), []);
    const first = await api('/people?limit=2');
    assert.deepEqual(names(first.body), ['human:adam', 'human:María 50%_off']);
    const second = await api(`/people?limit=2&cursor=${first.body.next}`);
    assert.deepEqual(names(second.body), ['human:Zoë Zimmer']);
    assert.equal(second.body.next, null);
    assert.equal((await api('/people?q=')).status, 400);
    assert.equal((await api('/people?limit=101')).status, 400);
    const bad = await api('/people?cursor=WyJ4Il0');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^cursor is not one this list gave/);
  });

  test("sessions: a person's live sessions, newest first; one ended; recorded; the browser must sign in again", async () => {
    const id = await person('sam@acme.example', 'Sam Session');
    const laptop = await signIn('sam@acme.example');
    const phone = await signIn('sam@acme.example');
    const listed = await api(`/principals/${id}/sessions`);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.items.length, 2);
    assert.equal(listed.body.next, null);
    const [newest, oldest] = listed.body.items;
    assert.ok(Date.parse(newest.created_at) >= Date.parse(oldest.created_at));
    assert.deepEqual(Object.keys(newest).sort(), [
      'client_ip',
      'created_at',
      'expires_at',
      'id',
      'provider',
      'second_factor',
      'user_agent',
    ]);
    assert.equal(newest.second_factor, false);
    const paged = await api(`/principals/${id}/sessions?limit=1`);
    assert.equal(paged.body.items[0].id, newest.id);
    assert.equal(
      (await api(`/principals/${id}/sessions?limit=1&cursor=${paged.body.next}`)).body.items[0].id,
      oldest.id,
    );

    const ended = await api(`/principals/${id}/sessions/${newest.id}`, { method: 'DELETE' });
    assert.equal(ended.status, 204);
    assert.deepEqual(
      (await api(`/principals/${id}/sessions`)).body.items.map((s: { id: string }) => s.id),
      [oldest.id],
    );
    // The browser of the ended session is asked to sign in again; the other still gets a code silently.
    const silent = (browser: TestBrowser) =>
      codeFlow(browser, { issuer: server.issuer, clientId, redirectUri: CALLBACK, scope: 'openid', prompt: 'none' });
    assert.equal((await silent(phone.browser)).callback.searchParams.get('error'), 'login_required');
    assert.equal((await silent(laptop.browser)).callback.searchParams.get('error'), null);
    const again = await api(`/principals/${id}/sessions/${newest.id}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.match(again.body.error.message, /^no live session with this id/);
    const changes = await changesOf(id);
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.action, 'login_session.end');
    assert.equal((changes[0]!.before as { session: { id: string } }).session.id, newest.id);
  });

  test('sign out everywhere: every session ends and every live token is revoked, refresh tokens too; recorded', async () => {
    const id = await person('eve@acme.example', 'Eve Everywhere');
    const one = await signIn('eve@acme.example');
    await signIn('eve@acme.example');
    const bystander = await person('bob@acme.example', 'Bob Bystander');
    const bob = await signIn('bob@acme.example');
    assert.ok(await server.runtime.verifier(one.tokens.access_token));
    const r = await api(`/principals/${id}/sessions`, { method: 'DELETE' });
    assert.equal(r.status, 200);
    // Two sign-ins: two sessions, and each an access and a refresh token.
    assert.deepEqual(r.body, { sessions_ended: 2, tokens_revoked: 4 });
    assert.deepEqual((await api(`/principals/${id}/sessions`)).body.items, []);
    assert.equal(await server.runtime.verifier(one.tokens.access_token), undefined);
    const refresh = await refreshTokens(server.issuer, clientId, one.tokens.refresh_token);
    assert.equal(refresh.status, 400);
    assert.equal(refresh.tokens.error, 'invalid_grant');
    assert.deepEqual((await api(`/principals/${id}/tokens`)).body.items, []);
    // Nobody else is touched.
    assert.ok(await server.runtime.verifier(bob.tokens.access_token));
    assert.equal((await api(`/principals/${bystander}/sessions`)).body.items.length, 1);
    const changes = await changesOf(id);
    assert.deepEqual(
      changes.map((c) => [c.action, c.after]),
      [['login_sessions.end_all', { sessions_ended: 2, tokens_revoked: 4 }]],
    );
    // Signing in again works.
    await signIn('eve@acme.example');
    assert.equal((await api(`/principals/${randomUUID()}/sessions`, { method: 'DELETE' })).status, 404);
  });

  test('second factors reset: the authenticator app, its recovery codes and passkeys revoked, on record; recorded', async () => {
    const id = await person('lou@acme.example', 'Lou Locked');
    const { db, secretKey } = server.runtime;
    const pending = await pendingEnrollment(db, secretKey, id, 'lou@acme.example', 'localhost');
    assert.ok(
      (await confirmEnrollment(db, secretKey, id, pending.credentialId, freshCode(pending.secret, -1).code)).ok,
    );
    await db.query(
      `INSERT INTO credentials (principal_id, type, identifier, webauthn_credential_id, webauthn_public_key, webauthn_aaguid, webauthn_sign_count, name)
       VALUES ($1, 'webauthn', 'lou-passkey', '\\x01', '\\x02', 'adce0002-35bc-c60a-648b-0b25f1f05503', 7, 'Tablet')`,
      [id],
    );
    const r = await api(`/principals/${id}/second-factors/reset`, { method: 'POST' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { totp_revoked: 1, passkeys_revoked: 1 });
    const credentials = (await api(`/principals/${id}/credentials`)).body.items as {
      type: string;
      revoked: boolean;
      revoked_reason: string | null;
    }[];
    assert.deepEqual(credentials.map((c) => [c.type, c.revoked, c.revoked_reason]).sort(), [
      ['password', false, null],
      ['totp', true, 'admin_reset'],
      ['webauthn', true, 'admin_reset'],
    ]);
    const codes = await db.query('SELECT 1 FROM mfa_recovery_codes WHERE principal_id = $1', [id]);
    assert.equal(codes.rows.length, 0);
    // Nothing left: zero of each, still recorded (an admin acted).
    assert.deepEqual((await api(`/principals/${id}/second-factors/reset`, { method: 'POST' })).body, {
      totp_revoked: 0,
      passkeys_revoked: 0,
    });
    assert.deepEqual(
      (await changesOf(id)).map((c) => [c.action, c.after]),
      [
        ['second_factors.reset', { totp_revoked: 1, passkeys_revoked: 1 }],
        ['second_factors.reset', { totp_revoked: 0, passkeys_revoked: 0 }],
      ],
    );
    const machine = await server.registerApp({ name: 'Robot', appType: 'machine' });
    const notPerson = await api(`/principals/${machine.principalId}/second-factors/reset`, { method: 'POST' });
    assert.equal(notPerson.status, 409);
    assert.match(notPerson.body.error.message, /^second factors are a person's/);
    const nobody = await api(`/principals/${randomUUID()}/second-factors/reset`, { method: 'POST' });
    assert.equal(nobody.status, 404);
  });

  test("memberships: a person's organizations with their names and roles, oldest first", async () => {
    const id = await person('olive@acme.example', 'Olive Org');
    for (const [name, slug, role] of [
      ['Acme', 'acme', 'owner'],
      ['<b>Beta</b>', 'beta', 'member'],
    ]) {
      const org = await api('/organizations', { method: 'POST', body: { name, slug } });
      assert.equal(org.status, 201, JSON.stringify(org.body));
      const added = await api(`/organizations/${org.body.id}/members`, {
        method: 'POST',
        body: { principal_id: id, role },
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
    }
    const r = await api(`/principals/${id}/memberships`);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.items.map((m: any) => [m.organization_name, m.organization_slug, m.role, m.active, m.organization_active]),
      [
        ['Acme', 'acme', 'owner', true, true],
        ['<b>Beta</b>', 'beta', 'member', true, true],
      ],
    );
    const page = await api(`/principals/${id}/memberships?limit=1`);
    assert.equal(page.body.items.length, 1);
    assert.equal(
      (await api(`/principals/${id}/memberships?limit=1&cursor=${page.body.next}`)).body.items[0].organization_slug,
      'beta',
    );
    assert.equal((await api(`/principals/${randomUUID()}/memberships`)).status, 404);
  });

  test('every new route refuses a caller without the admin scope', async () => {
    const id = randomUUID();
    for (const [method, path] of [
      ['GET', '/people'],
      ['GET', `/principals/${id}/sessions`],
      ['DELETE', `/principals/${id}/sessions`],
      ['DELETE', `/principals/${id}/sessions/${randomUUID()}`],
      ['POST', `/principals/${id}/second-factors/reset`],
      ['GET', `/principals/${id}/memberships`],
    ]) {
      const r = await fetch(`${server.issuer}/api/v1${path}`, {
        method,
        headers: { authorization: 'Bearer not-a-token' },
      });
      assert.equal(r.status, 401, `${method} ${path}`);
    }
  });
});
