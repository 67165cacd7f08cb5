import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestBrowser } from '../identity/browser.ts';
import { codeFlow } from '../support/code-flow.ts';
import { startLinkedPlatform, type LinkedPlatform } from '../support/linked-platform.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { identityRuntime } from '../../src/identity/app.ts';

/**
 * `platform start` with all four services (as `npm start` runs them), in one process: the console's built-in client at
 * identity, the first owner holding every right, audit and ingest taking identity's tokens with no introspection client
 * registered, and CORS for the console's origin on every service's API (refusals included).
 */
const OWNER = { email: 'olga@acme.example', password: 'a long enough passphrase' };
const PLAIN = { email: 'paul@acme.example', password: 'another long passphrase' };

describe('the console linked by platform start', () => {
  let p: LinkedPlatform;
  let config: { identity: { issuer: string; clientId: string; redirectUri: string; scope: string }; services: any[] };
  const signIn = async (who: { email: string; password: string }) => {
    const got = await codeFlow(new TestBrowser(), {
      issuer: config.identity.issuer,
      clientId: config.identity.clientId,
      redirectUri: config.identity.redirectUri,
      scope: config.identity.scope,
      credentials: who,
      origin: p.url.dashboard,
    });
    assert.equal(got.status, 200, JSON.stringify(got.tokens));
    return got;
  };
  const call = (base: string, path: string, token?: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        origin: p.url.dashboard!,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.headers as Record<string, string>),
      },
    });

  before(async () => {
    p = await startLinkedPlatform('consolelinks', ['identity', 'dashboard', 'audit', 'ingest']);
    config = (await (await fetch(`${p.url.dashboard}/api/v1/console/config`)).json()) as typeof config;
    const setup = await fetch(`${p.url.dashboard}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenantName: 'Acme',
        tenantSlug: 'acme',
        email: OWNER.email,
        name: 'Olga Owner',
        password: OWNER.password,
        passwordConfirmation: OWNER.password,
      }),
    });
    assert.equal(setup.status, 201, await setup.text());
    await createHuman(identityRuntime(p.app.identity!).db, {
      email: PLAIN.email,
      password: PLAIN.password,
      emailVerified: true,
    });
  });
  after(async () => p?.close());

  test('the start links every service to identity, and the dashboard serves the console its configuration', async () => {
    assert.deepEqual(p.wired, ['audit → identity', 'ingest → identity', 'dashboard → identity']);
    assert.deepEqual(config, {
      identity: {
        issuer: p.url.identity,
        clientId: 'platform-console',
        redirectUri: `${p.url.dashboard}/console/callback`,
        scope: 'openid profile email offline_access admin audits ingest:admin',
      },
      services: [
        { section: 'identity', url: p.url.identity, scope: 'admin' },
        { section: 'audits', url: p.url.audit, scope: 'audits' },
        { section: 'events', url: p.url.ingest, scope: 'ingest:admin' },
      ],
    });
    // The pages may call those origins and no other; still no inline script.
    const page = await fetch(`${p.url.dashboard}/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, new RegExp(`connect-src 'self' ${p.url.identity} ${p.url.audit} ${p.url.ingest};`));
    assert.match(csp, /script-src 'self';/);
  });

  test('the first owner holds every right: one sign-in, and identity, audit and ingest all answer their token', async () => {
    const { tokens, headers } = await signIn(OWNER);
    assert.equal(headers?.get('access-control-allow-origin'), p.url.dashboard, "the console's script reads the answer");
    assert.deepEqual(tokens.scope.split(' ').sort(), ['admin', 'audits', 'email', 'ingest:admin', 'openid', 'profile']);
    assert.ok(tokens.refresh_token, 'a refresh token, to stay signed in');
    for (const [base, path] of [
      [p.url.identity!, '/api/v1/applications'],
      [p.url.audit!, '/api/v1/audits'],
      [p.url.ingest!, '/api/v1/projects'],
    ] as const) {
      const r = await call(base, path, tokens.access_token);
      assert.equal(r.status, 200, `${base}${path}: ${await r.text()}`);
      assert.equal(r.headers.get('access-control-allow-origin'), p.url.dashboard);
    }
    const me = (await call(p.url.identity!, '/oauth/userinfo', tokens.access_token).then((r) => r.json())) as {
      sub: string;
    };
    const rights = await call(p.url.identity!, `/api/v1/principals/${me.sub}/console-rights`, tokens.access_token);
    assert.deepEqual(
      ((await rights.json()) as { rights: { name: string; held: boolean }[] }).rights.map((r) => [r.name, r.held]),
      [
        ['identity', true],
        ['audits', true],
        ['events', true],
      ],
    );
  });

  test('a person without rights: a token without those scopes, and every API refuses it (403), readable cross-origin', async () => {
    const { tokens } = await signIn(PLAIN);
    assert.deepEqual(tokens.scope.split(' ').sort(), ['email', 'openid', 'profile']);
    for (const [base, path] of [
      [p.url.identity!, '/api/v1/applications'],
      [p.url.audit!, '/api/v1/audits'],
      [p.url.ingest!, '/api/v1/projects'],
    ] as const) {
      const r = await call(base, path, tokens.access_token);
      assert.equal(r.status, 403, `${base}${path}`);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'FORBIDDEN');
      assert.equal(r.headers.get('access-control-allow-origin'), p.url.dashboard);
    }
  });

  test('a 401 carries CORS on every service, and each answers the preflight of an authorized call', async () => {
    for (const [base, path] of [
      [p.url.identity!, '/api/v1/applications'],
      [p.url.audit!, '/api/v1/audits'],
      [p.url.ingest!, '/api/v1/projects'],
    ] as const) {
      const refused = await call(base, path);
      assert.equal(refused.status, 401, `${base}${path}`);
      assert.equal(refused.headers.get('access-control-allow-origin'), p.url.dashboard, `${base}${path}`);
      assert.match(refused.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      const preflight = await call(base, path, undefined, {
        method: 'OPTIONS',
        headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.status, 204, `${base}${path}`);
      assert.equal(preflight.headers.get('access-control-allow-origin'), p.url.dashboard);
      const other = await fetch(`${base}${path}`, { headers: { origin: 'https://evil.example' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null, `${base}${path}`);
    }
  });

  test('a token that is no token is a 401 at audit and ingest, and a revoked one stops working at once', async () => {
    for (const base of [p.url.audit!, p.url.ingest!]) {
      const r = await call(base, base === p.url.audit ? '/api/v1/audits' : '/api/v1/projects', 'not-a-token');
      assert.equal(r.status, 401);
    }
    const { tokens } = await signIn(OWNER);
    const revoke = await fetch(`${p.url.identity}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: 'platform-console' }),
    });
    assert.equal(revoke.status, 200);
    assert.equal((await call(p.url.audit!, '/api/v1/audits', tokens.access_token)).status, 401);
    assert.equal((await call(p.url.ingest!, '/api/v1/projects', tokens.access_token)).status, 401);
  });
  test('a key made in the console stops at once when its maker loses the audits right, and counts again when given back', async () => {
    const owner = (await signIn(OWNER)).tokens.access_token;
    const userinfo = await call(p.url.identity!, '/oauth/userinfo', (await signIn(PLAIN)).tokens.access_token);
    const paul = ((await userinfo.json()) as { sub: string }).sub;
    const setRights = async (rights: string[]) => {
      const r = await call(p.url.identity!, `/api/v1/principals/${paul}/console-rights`, owner, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rights }),
      });
      assert.equal(r.status, 200, await r.text());
    };
    await setRights(['audits']);
    const made = await call(p.url.audit!, '/api/v1/keys', (await signIn(PLAIN)).tokens.access_token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const { key } = (await made.json()) as { key: string };
    assert.equal((await call(p.url.audit!, '/api/v1/audits', key)).status, 200);
    // Linked, audit reads identity's own directory, which the change invalidates: no wait.
    await setRights([]);
    const refused = await call(p.url.audit!, '/api/v1/audits', key);
    assert.equal(refused.status, 403);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /no longer holds/);
    await setRights(['audits']);
    assert.equal((await call(p.url.audit!, '/api/v1/audits', key)).status, 200);
  });
});
