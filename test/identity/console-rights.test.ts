import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startServer, managementApi, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow, refreshTokens } from '../support/code-flow.ts';

/**
 * Console rights (src/identity/console): a person's rights are scopes of identity they hold, managed through
 * `/api/v1/principals/:id/console-rights`, recorded in admin_changes, and a token carries a right's scope only while its
 * person holds it, whatever the app asks for.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const CALLBACK = 'http://localhost:8765/console/callback';
const CONSOLE_ORIGIN = 'http://localhost:8765';
const EVERY_SCOPE = 'openid profile email offline_access admin audits ingest:admin';
const PASSWORD = 'correct horse battery staple';

describe('console rights', () => {
  let server: Server;
  let clientId: string;
  let olga: string;
  let alice: string;
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );

  before(async () => {
    server = await startServer('idrights', {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      IDENTITY_EXTRA_SCOPES: 'audits,ingest:admin',
      IDENTITY_CORS_ORIGINS: CONSOLE_ORIGIN,
    });
    // A first-party single-page app allowed every right's scope, as the console's built-in client is.
    clientId = (
      await server.registerApp({
        name: 'Console',
        appType: 'spa',
        redirectUris: [CALLBACK],
        allowedScopes: EVERY_SCOPE.split(' '),
        firstParty: true,
      })
    ).clientId;
    olga = await server.createHuman('olga@acme.example', PASSWORD, true);
    alice = await server.createHuman('alice@acme.example', PASSWORD);
  });
  after(async () => server?.close());

  const signIn = async (email: string, browser = new TestBrowser()) => {
    const got = await codeFlow(browser, {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: EVERY_SCOPE,
      credentials: { email, password: PASSWORD },
    });
    assert.equal(got.status, 200, JSON.stringify(got.tokens ?? got.callback.search));
    return { browser, tokens: got.tokens };
  };
  // offline_access never appears (the provider drops it without prompt=consent); the app gets a refresh token anyway.
  const scopesOf = (tokens: { scope: string }) => tokens.scope.split(' ').sort();
  const asPerson = (token: string) =>
    managementApi(
      () => server.issuer,
      () => token,
    );

  test('a person holding no right asks for every scope and gets a token without them; the management API answers 403', async () => {
    const { tokens } = await signIn('alice@acme.example');
    assert.deepEqual(scopesOf(tokens), ['email', 'openid', 'profile']);
    const refused = await asPerson(tokens.access_token)('/applications');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
  });

  test('the owner of every right gets every scope, and the management API answers', async () => {
    const put = await api(`/principals/${olga}/console-rights`, {
      method: 'PUT',
      body: { rights: ['identity', 'audits', 'events'] },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const { tokens } = await signIn('olga@acme.example');
    assert.deepEqual(scopesOf(tokens), ['admin', 'audits', 'email', 'ingest:admin', 'openid', 'profile']);
    assert.equal((await asPerson(tokens.access_token)('/applications')).status, 200);
  });

  test('`admin` in allowed_scopes without the platform-admin flag is not held: no token carries it', async () => {
    const bob = await server.createHuman('bob@acme.example', PASSWORD);
    const patched = await api(`/principals/${bob}`, {
      method: 'PATCH',
      body: { allowed_scopes: ['openid', 'profile', 'email', 'offline_access', 'admin'] },
    });
    assert.equal(patched.status, 200);
    const { tokens } = await signIn('bob@acme.example');
    assert.deepEqual(scopesOf(tokens), ['email', 'openid', 'profile']);
    const rights = await api(`/principals/${bob}/console-rights`);
    assert.equal(rights.body.rights.find((r: { name: string }) => r.name === 'identity').held, false);
  });

  test('GET answers each right with its scope; PUT sets them exactly and records who did it', async () => {
    const before = await api(`/principals/${alice}/console-rights`);
    assert.equal(before.status, 200);
    assert.deepEqual(
      before.body.rights.map((r: { name: string; scope: string; held: boolean }) => [r.name, r.scope, r.held]),
      [
        ['identity', 'admin', false],
        ['audits', 'audits', false],
        ['events', 'ingest:admin', false],
      ],
    );
    // Olga, with her own token, gives Alice the audits right.
    const { tokens } = await signIn('olga@acme.example');
    const put = await asPerson(tokens.access_token)(`/principals/${alice}/console-rights`, {
      method: 'PUT',
      body: { rights: ['audits'] },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(
      put.body.rights.filter((r: { held: boolean }) => r.held).map((r: { name: string }) => r.name),
      ['audits'],
    );
    const principal = await api(`/principals/${alice}`);
    assert.deepEqual([...principal.body.allowed_scopes].sort(), [
      'audits',
      'email',
      'offline_access',
      'openid',
      'profile',
    ]);
    const changes = await server.runtime.db.query<Record<string, unknown>>(
      'SELECT actor_kind, actor_id, action, target_type, target_id, before, after FROM admin_changes WHERE target_id = $1 ORDER BY id',
      [alice],
    );
    assert.deepEqual(changes.rows.at(-1), {
      actor_kind: 'person',
      actor_id: olga,
      action: 'console_rights.set',
      target_type: 'principal',
      target_id: alice,
      before: { rights: [] },
      after: { rights: ['audits'] },
    });
  });

  test('prompt=none: a signed-in person gets a code without any page, with the scopes they hold now (a new right, a right taken)', async () => {
    await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: [] } });
    const { browser } = await signIn('alice@acme.example');
    const silent = () =>
      codeFlow(browser, { issuer: server.issuer, clientId, redirectUri: CALLBACK, scope: EVERY_SCOPE, prompt: 'none' });
    const first = await silent();
    assert.equal(first.callback.searchParams.get('error'), null, first.callback.search);
    assert.deepEqual(scopesOf(first.tokens), ['email', 'openid', 'profile']);
    // Given the events right: the next silent sign-in carries it, with no consent asked.
    await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: ['events'] } });
    const second = await silent();
    assert.equal(second.callback.searchParams.get('error'), null, second.callback.search);
    assert.deepEqual(scopesOf(second.tokens), ['email', 'ingest:admin', 'openid', 'profile']);
    // Taken away: the token already issued stops carrying it at once, a refresh drops it, and so does the next sign-in.
    const before = await server.runtime.verifier(second.tokens.access_token);
    assert.ok(before?.scopes.includes('ingest:admin'));
    await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: [] } });
    const after = await server.runtime.verifier(second.tokens.access_token);
    assert.deepEqual([...(after?.scopes ?? [])].sort(), ['email', 'openid', 'profile']);
    const refreshed = await refreshTokens(server.issuer, clientId, second.tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.tokens));
    assert.deepEqual(scopesOf(refreshed.tokens), ['email', 'openid', 'profile']);
    const third = await silent();
    assert.deepEqual(scopesOf(third.tokens), ['email', 'openid', 'profile']);
  });

  test('prompt=none without a session at identity is login_required, never a page', async () => {
    const got = await codeFlow(new TestBrowser(), {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: EVERY_SCOPE,
      prompt: 'none',
    });
    assert.equal(got.callback.searchParams.get('error'), 'login_required');
  });

  test('refusals: unknown right, no such principal, not a person, the last holder of the identity right, bad credentials', async () => {
    const unknown = await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: ['root'] } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'VALIDATION_ERROR');
    const missing = await api(`/principals/${randomUuid()}/console-rights`, { method: 'PUT', body: { rights: [] } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const app = await server.registerApp({ name: 'Robot', appType: 'machine' });
    const notPerson = await api(`/principals/${app.principalId}/console-rights`, {
      method: 'PUT',
      body: { rights: ['audits'] },
    });
    assert.equal(notPerson.status, 409);
    assert.match(notPerson.body.error.message, /console rights are a person's/);
    // Olga holds the identity right alone: she cannot lose it, nor take it from herself.
    const last = await api(`/principals/${olga}/console-rights`, { method: 'PUT', body: { rights: ['audits'] } });
    assert.equal(last.status, 409);
    assert.match(last.body.error.message, /^olga@acme\.example is the last person with the identity right/);
    assert.equal((await api(`/principals/${olga}/console-rights`)).body.rights[0].held, true, 'nothing changed');
    // With a second holder, she can.
    await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: ['identity'] } });
    assert.equal(
      (await api(`/principals/${olga}/console-rights`, { method: 'PUT', body: { rights: ['identity', 'audits'] } }))
        .status,
      200,
    );
    const gone = await api(`/principals/${alice}/console-rights`, { method: 'PUT', body: { rights: [] } });
    assert.equal(gone.status, 200);
    const anonymous = await fetch(`${server.issuer}/api/v1/principals/${alice}/console-rights`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"rights": 7',
    });
    assert.equal(anonymous.status, 401);
  });

  test("CORS on /api/v1 for IDENTITY_CORS_ORIGINS: the preflight, and a 401's headers a script can read", async () => {
    const preflight = await fetch(`${server.issuer}/api/v1/applications`, {
      method: 'OPTIONS',
      headers: {
        origin: CONSOLE_ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), CONSOLE_ORIGIN);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    const refused = await fetch(`${server.issuer}/api/v1/applications`, { headers: { origin: CONSOLE_ORIGIN } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), CONSOLE_ORIGIN);
    assert.match(refused.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    const stranger = await fetch(`${server.issuer}/api/v1/applications`, {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(stranger.status, 401);
    assert.equal(stranger.headers.get('access-control-allow-origin'), null);
    // The sign-in pages are not the API's: no CORS there.
    const page = await fetch(`${server.issuer}/signin`, { headers: { origin: CONSOLE_ORIGIN } });
    assert.equal(page.headers.get('access-control-allow-origin'), null);
  });

  test("the token endpoint answers a public client's script from its redirect URI's origin only", async () => {
    const browser = new TestBrowser();
    const ok = await codeFlow(browser, {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      credentials: { email: 'alice@acme.example', password: PASSWORD },
      origin: CONSOLE_ORIGIN,
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers?.get('access-control-allow-origin'), CONSOLE_ORIGIN);
    const other = await codeFlow(browser, {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: 'openid',
      origin: 'https://evil.example',
    });
    assert.equal(other.status, 400);
    assert.equal(other.tokens.error, 'invalid_request');
    assert.equal(other.headers?.get('access-control-allow-origin'), null);
  });
});

function randomUuid(): string {
  return crypto.randomUUID();
}
