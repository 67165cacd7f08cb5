import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ConfigError } from '../../../src/kit/config.ts';
import { loadIngestConfig } from '../../../src/ingest/config.ts';
import { buildIngestApp } from '../../../src/ingest/app.ts';
import { startServer, form, basic, type Server } from '../../identity/support.ts';
import { startIngest, ADMIN_TOKEN, type IngestHarness } from '../../ingest/helpers.ts';

// The guard as services use it: ingest's admin API checking identity's access tokens by introspection,
// and identity's management API checking its own tokens in its store.
const IDENTITY_ADMIN_TOKEN = 'identity-admin-token-for-machines-0123';
let identity: Server;
let ingest: IngestHarness;
let introspector: { clientId: string; secret: string };

async function clientCredentials(scopes: string[], ttl?: number): Promise<{ token: string; expiresIn: number }> {
  const app = await identity.registerApp({
    name: `machine ${scopes.join(' ') || 'none'}`,
    appType: 'machine',
    allowedScopes: scopes,
    accessTokenTtl: ttl,
  });
  const res = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', ...(scopes.length ? { scope: scopes.join(' ') } : {}) },
    { authorization: basic(app.clientId, app.secret!) },
  );
  assert.equal(res.status, 200, res.text);
  return { token: res.json.access_token, expiresIn: res.json.expires_in };
}

const projects = (token: string | undefined, h: IngestHarness = ingest) =>
  h.app.inject({
    method: 'GET',
    url: '/api/v1/projects',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  identity = await startServer('guard_identity', {
    IDENTITY_EXTRA_SCOPES: 'ingest:admin,reports:read',
    IDENTITY_ADMIN_TOKEN,
  });
  // Identity tells a token's details only to its own app or to a resource server.
  const app = await identity.registerApp({
    name: 'ingest service',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  introspector = { clientId: app.clientId, secret: app.secret! };
  ingest = await startIngest(
    {
      INGEST_IDENTITY_URL: identity.issuer,
      INGEST_IDENTITY_CLIENT_ID: introspector.clientId,
      INGEST_IDENTITY_CLIENT_SECRET: introspector.secret,
    },
    'guard_ingest',
  );
});

after(async () => {
  await ingest?.close();
  await identity?.close();
});

test("an identity access token with the route's scope opens ingest's admin API", async () => {
  const { token } = await clientCredentials(['ingest:admin']);
  const created = await ingest.app.inject({
    method: 'POST',
    url: '/api/v1/projects',
    headers: { authorization: `Bearer ${token}` },
    payload: { name: 'by token', id: 'by-token' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const listed = await projects(token);
  assert.equal(listed.statusCode, 200);
  assert.ok(listed.json().items.some((p: { id: string }) => p.id === 'by-token'));
});

test('a live token without the scope is 403 FORBIDDEN naming the scope', async () => {
  const { token } = await clientCredentials(['reports:read']);
  const res = await projects(token);
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'FORBIDDEN');
  assert.match(res.json().error.message, /ingest:admin/);
  assert.equal(
    res.headers['www-authenticate'],
    'Bearer realm="ingest", error="insufficient_scope", scope="ingest:admin"',
  );
  const write = await ingest.app.inject({
    method: 'POST',
    url: '/api/v1/projects',
    headers: { authorization: `Bearer ${token}` },
    payload: { name: 'nope' },
  });
  assert.equal(write.statusCode, 403);
});

test('an unknown, revoked or expired token, or none, is 401 UNAUTHORIZED', async () => {
  const none = await projects(undefined);
  assert.equal(none.statusCode, 401);
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="ingest"');
  for (const bad of ['not-a-token-identity-issued', 'Bearer', '']) {
    const res = await projects(bad);
    assert.equal(res.statusCode, 401, bad);
    assert.equal(res.json().error.code, 'UNAUTHORIZED');
  }
  assert.match(
    String((await projects('not-a-token-identity-issued')).headers['www-authenticate']),
    /error="invalid_token"/,
  );

  // Revoked before ingest ever saw it, so no cached answer stands in the way.
  const revoked = await clientCredentials(['ingest:admin']);
  const app = await identity.registerApp({ name: 'revoker', appType: 'machine', allowedScopes: ['ingest:admin'] });
  const own = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'ingest:admin' },
    { authorization: basic(app.clientId, app.secret!) },
  );
  assert.equal(
    (
      await form(
        `${identity.issuer}/oauth/revoke`,
        { token: own.json.access_token },
        { authorization: basic(app.clientId, app.secret!) },
      )
    ).status,
    200,
  );
  assert.equal((await projects(own.json.access_token)).statusCode, 401, 'a revoked token');
  assert.equal((await projects(revoked.token)).statusCode, 200, 'another live token of the same scope still works');

  // Two seconds: `exp` is in whole seconds, so a token of one second issued late in a second lives only what is left of
  // it (this failed once in CI); one of two lives at least a second.
  const shortLived = await clientCredentials(['ingest:admin'], 2);
  assert.equal((await projects(shortLived.token)).statusCode, 200);
  // Its answer is cached, but never past the token's own expiry.
  await new Promise((resolve) => setTimeout(resolve, shortLived.expiresIn * 1000 + 1100));
  const expired = await projects(shortLived.token);
  assert.equal(expired.statusCode, 401, 'an expired token');
  assert.match(expired.json().error.message, /invalid, expired or revoked/);
});

test("the service's own admin token opens every route, with or without identity", async () => {
  assert.equal((await projects(ADMIN_TOKEN)).statusCode, 200);
  assert.equal(
    (
      await ingest.app.inject({
        method: 'POST',
        url: '/api/v1/projects',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { name: 'by service token' },
      })
    ).statusCode,
    201,
  );
  assert.equal((await projects(`${ADMIN_TOKEN}x`)).statusCode, 401, 'a token one character longer');
  assert.equal((await projects(ADMIN_TOKEN.slice(0, -1))).statusCode, 401, 'a prefix of the token');
});

test('identity unreachable: 503 UNAVAILABLE with Retry-After, while the service token still works', async () => {
  const alone = await startIngest(
    {
      INGEST_IDENTITY_URL: `http://127.0.0.1:${await closedPort()}`,
      INGEST_IDENTITY_CLIENT_ID: 'x',
      INGEST_IDENTITY_CLIENT_SECRET: 'y',
    },
    'guard_alone',
  );
  try {
    const res = await projects('some-access-token-value', alone);
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'UNAVAILABLE');
    assert.equal(res.headers['retry-after'], '5');
    assert.equal((await projects(ADMIN_TOKEN, alone)).statusCode, 200);
  } finally {
    await alone.close();
  }
});

test('wrong introspection credentials are 503 (a fault of the configuration), never a 401 blaming the caller', async () => {
  const misconfigured = await startIngest(
    {
      INGEST_IDENTITY_URL: identity.issuer,
      INGEST_IDENTITY_CLIENT_ID: introspector.clientId,
      INGEST_IDENTITY_CLIENT_SECRET: 'wrong-secret',
    },
    'guard_badclient',
  );
  try {
    const { token } = await clientCredentials(['ingest:admin']);
    const res = await projects(token, misconfigured);
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'UNAVAILABLE');
  } finally {
    await misconfigured.close();
  }
});

test('an identity URL without client credentials is a configuration error naming the missing variable', async () => {
  const config = loadIngestConfig({
    DATABASE_URL: ingest.database.url,
    LOG_LEVEL: 'silent',
    INGEST_IDENTITY_URL: identity.issuer,
  });
  await assert.rejects(
    buildIngestApp(config),
    (err: unknown) => err instanceof ConfigError && err.variable === 'INGEST_IDENTITY_CLIENT_ID',
  );
});

test("identity's management API: its own tokens checked locally, and IDENTITY_ADMIN_TOKEN for machines", async () => {
  const api = (token: string) =>
    fetch(`${identity.issuer}/api/v1/principals`, { headers: { authorization: `Bearer ${token}` } });
  const byServiceToken = await api(IDENTITY_ADMIN_TOKEN);
  assert.equal(byServiceToken.status, 200);
  assert.ok(Array.isArray(((await byServiceToken.json()) as { items: unknown[] }).items));
  const { token } = await clientCredentials(['ingest:admin']);
  const machine = await api(token);
  assert.equal(machine.status, 401, 'a client-credentials token speaks for no person');
  assert.equal(((await machine.json()) as any).error.code, 'UNAUTHORIZED');
  assert.equal((await api('wrong-identity-admin-token-0000000')).status, 401);
});
