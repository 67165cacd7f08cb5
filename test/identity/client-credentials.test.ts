import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, basic, form, type Server } from './support.ts';

let server: Server;
let machine: { clientId: string; secret: string | undefined; principalId: string };
let other: { clientId: string; secret: string | undefined };

before(async () => {
  server = await startServer('idcc', { IDENTITY_EXTRA_SCOPES: 'events:write,events:read' });
  machine = await server.registerApp({
    name: 'Collector',
    appType: 'machine',
    allowedScopes: ['events:write', 'events:read'],
  });
  other = await server.registerApp({ name: 'Other', appType: 'machine', allowedScopes: ['events:read'] });
});
after(async () => server?.close());

test("discovery advertises the contract's values, and beside them every grant and client authentication it takes", async () => {
  const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
  assert.equal(res.status, 200);
  const d = (await res.json()) as any;
  assert.equal(d.issuer, server.issuer);
  assert.equal(d.authorization_endpoint, `${server.issuer}/oauth/authorize`);
  assert.equal(d.token_endpoint, `${server.issuer}/oauth/token`);
  assert.equal(d.introspection_endpoint, `${server.issuer}/oauth/introspect`);
  assert.equal(d.revocation_endpoint, `${server.issuer}/oauth/revoke`);
  assert.equal(d.jwks_uri, `${server.issuer}/.well-known/jwks.json`);
  assert.deepEqual(d.response_types_supported, ['code']);
  assert.deepEqual([...d.grant_types_supported].sort(), [
    'authorization_code',
    'client_credentials',
    'refresh_token',
    'urn:ietf:params:oauth:grant-type:device_code',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'urn:ietf:params:oauth:grant-type:token-exchange',
  ]);
  assert.deepEqual([...d.token_endpoint_auth_methods_supported].sort(), [
    'client_secret_basic',
    'client_secret_post',
    'none',
    'private_key_jwt',
  ]);
  assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
});

test('the JWKS publishes one RS256 signing key without its private half', async () => {
  const res = await fetch(`${server.issuer}/.well-known/jwks.json`);
  assert.equal(res.status, 200);
  const { keys } = (await res.json()) as any;
  assert.equal(keys.length, 1);
  const [k] = keys;
  assert.equal(k.kty, 'RSA');
  assert.equal(k.alg, 'RS256');
  assert.equal(k.use, 'sig');
  assert.ok(k.kid && k.n && k.e);
  assert.equal(k.d, undefined);
  const stored = await server.runtime.db.query<{ private_jwk_sealed: string }>(
    'SELECT private_jwk_sealed FROM signing_keys',
  );
  assert.match(stored.rows[0]!.private_jwk_sealed, /^v1\./);
  assert.ok(!stored.rows[0]!.private_jwk_sealed.includes(k.n));
});

test('client credentials with Basic and with post both issue an opaque token; introspection shows the contract shape', async () => {
  const viaBasic = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'events:write' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(viaBasic.status, 200, viaBasic.text);
  assert.equal(viaBasic.json.token_type, 'Bearer');
  assert.equal(viaBasic.json.expires_in, 900);
  assert.equal(viaBasic.json.scope, 'events:write');
  assert.equal(viaBasic.json.access_token.split('.').length, 1, 'access tokens are opaque, not JWTs');

  const viaPost = await form(`${server.issuer}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: machine.clientId,
    client_secret: machine.secret!,
    scope: 'events:read',
  });
  assert.equal(viaPost.status, 200, viaPost.text);

  const intro = await form(
    `${server.issuer}/oauth/introspect`,
    { token: viaBasic.json.access_token },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(intro.status, 200);
  const body = intro.json;
  assert.equal(body.active, true);
  assert.equal(body.scope, 'events:write');
  assert.equal(body.client_id, machine.clientId);
  assert.equal(body.username, machine.clientId);
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.sub, machine.principalId);
  assert.ok(Array.isArray(body.aud) && body.aud.length === 1);
  assert.equal(typeof body.exp, 'number');
  assert.equal(typeof body.iat, 'number');
  assert.equal(body.exp - body.iat, 900);
});

test('tokens and secrets are stored only as SHA-256', async () => {
  const t = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'events:read' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  const token: string = t.json.access_token;
  const { createHash } = await import('node:crypto');
  const rows = await server.runtime.db.query<Record<string, unknown>>(
    'SELECT * FROM oauth_tokens WHERE access_token_signature = $1',
    [createHash('sha256').update(token).digest('hex')],
  );
  assert.equal(rows.rows.length, 1);
  const row = rows.rows[0]!;
  assert.equal(row.kind, 'client_credentials');
  assert.equal(row.client_id, machine.clientId);
  assert.equal(row.principal_id, machine.principalId);
  assert.equal(row.subject, null);
  assert.deepEqual(row.scopes, ['events:read']);
  assert.equal(row.client_ip, '127.0.0.1');
  const everything =
    JSON.stringify((await server.runtime.db.query('SELECT * FROM oauth_tokens')).rows) +
    JSON.stringify((await server.runtime.db.query('SELECT * FROM oauth_app_secrets')).rows);
  assert.ok(!everything.includes(token), 'no token in clear');
  assert.ok(!everything.includes(machine.secret!), 'no secret in clear');
});

test("revocation answers 200 always, revokes only the caller's own tokens", async () => {
  const mine = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'events:read' },
      { authorization: basic(machine.clientId, machine.secret!) },
    )
  ).json.access_token;
  const theirs = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'events:read' },
      { authorization: basic(other.clientId, other.secret!) },
    )
  ).json.access_token;

  const wrongOwner = await form(
    `${server.issuer}/oauth/revoke`,
    { token: theirs },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(wrongOwner.status, 200);
  const stillActive = await form(
    `${server.issuer}/oauth/introspect`,
    { token: theirs },
    { authorization: basic(other.clientId, other.secret!) },
  );
  assert.equal(stillActive.json.active, true, "another client's token is not revoked");

  const unknown = await form(
    `${server.issuer}/oauth/revoke`,
    { token: 'not-a-token', token_type_hint: 'access_token' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(unknown.status, 200);

  const own = await form(
    `${server.issuer}/oauth/revoke`,
    { token: mine, token_type_hint: 'access_token' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(own.status, 200);
  const gone = await form(
    `${server.issuer}/oauth/introspect`,
    { token: mine },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.deepEqual(gone.json, { active: false });

  const unauthenticated = await form(`${server.issuer}/oauth/revoke`, { token: mine });
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.json.error, 'invalid_client');
  assert.match(unauthenticated.headers.get('www-authenticate') ?? '', /^Basic /);
  const byIdOnly = await form(`${server.issuer}/oauth/revoke`, { token: mine, client_id: machine.clientId });
  assert.equal(byIdOnly.status, 401, 'a client_id without its secret is no authentication');
  assert.equal(byIdOnly.json.error, 'invalid_client');
});

test('a public client cannot introspect (the contract wants HTTP Basic), nor pass the placeholder as a secret', async () => {
  const spa = await server.registerApp({
    name: 'Public',
    appType: 'spa',
    redirectUris: ['http://localhost:8765/callback'],
  });
  const r = await form(`${server.issuer}/oauth/introspect`, { token: 'anything', client_id: spa.clientId });
  assert.equal(r.status, 401, r.text);
  assert.equal(r.json.error, 'invalid_client');
  assert.equal(
    (await form(`${server.issuer}/oauth/revoke`, { token: 'anything', client_id: spa.clientId })).status,
    200,
    'a public client revokes by client_id',
  );
  for (const endpoint of ['introspect', 'revoke']) {
    const withBasic = await form(
      `${server.issuer}/oauth/${endpoint}`,
      { token: 'anything' },
      { authorization: basic(spa.clientId, 'stored-as-sha256-in-oauth_app_secrets') },
    );
    assert.equal(withBasic.status, 401, `${endpoint} with the placeholder as a secret: ${withBasic.text}`);
    assert.equal(withBasic.json.error, 'invalid_client');
  }
});

test('bad client credentials requests get the OAuth error codes', async () => {
  const wrongSecret = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic(machine.clientId, 'cs_wrong') },
  );
  assert.equal(wrongSecret.status, 401);
  assert.equal(wrongSecret.json.error, 'invalid_client');
  assert.ok(wrongSecret.json.error_description);

  const unknownClient = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic('nobody', 'x') },
  );
  assert.equal(unknownClient.status, 401);
  assert.equal(unknownClient.json.error, 'invalid_client');

  const notAllowed = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'events:write' },
    { authorization: basic(other.clientId, other.secret!) },
  );
  assert.equal(notAllowed.status, 400);
  assert.equal(notAllowed.json.error, 'invalid_scope');

  const unknownScope = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'made:up' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(unknownScope.status, 400);
  assert.equal(unknownScope.json.error, 'invalid_scope');

  const adminScope = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'admin' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(adminScope.status, 400);
  assert.equal(adminScope.json.error, 'invalid_scope');

  const wrongGrant = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://a.example/cb' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(wrongGrant.status, 400, wrongGrant.text);
  assert.equal(wrongGrant.json.error, 'unauthorized_client', wrongGrant.text);

  const unsupported = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'password', username: 'a', password: 'b' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(unsupported.status, 400);
  assert.equal(unsupported.json.error, 'unsupported_grant_type');

  const noBody = await fetch(`${server.issuer}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic(machine.clientId, machine.secret!) },
  });
  assert.equal(noBody.status, 400);
  assert.equal(((await noBody.json()) as any).error, 'invalid_request');

  const json = await fetch(`${server.issuer}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic(machine.clientId, machine.secret!), 'content-type': 'application/json' },
    body: '{"grant_type":',
  });
  assert.equal(json.status, 400);
  assert.equal(((await json.json()) as any).error, 'invalid_request');
});

test('introspection needs client authentication and rejects JWTs as unsupported', async () => {
  const token = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'events:read' },
      { authorization: basic(machine.clientId, machine.secret!) },
    )
  ).json.access_token;
  const anonymous = await form(`${server.issuer}/oauth/introspect`, { token });
  assert.equal(anonymous.status, 401);
  assert.deepEqual(Object.keys(anonymous.json).sort(), ['error', 'error_description']);
  assert.equal(anonymous.json.error, 'invalid_client');
  const wrong = await form(
    `${server.issuer}/oauth/introspect`,
    { token },
    { authorization: basic(machine.clientId, 'cs_nope') },
  );
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.error, 'invalid_client');
  const unknown = await form(
    `${server.issuer}/oauth/introspect`,
    { token: 'abc' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.deepEqual(unknown.json, { active: false });
  const jwt = 'eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ4In0.c2ln';
  const structured = await form(
    `${server.issuer}/oauth/introspect`,
    { token: jwt },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(structured.status, 200);
  assert.deepEqual(structured.json, { active: false });
  const revokeJwt = await form(
    `${server.issuer}/oauth/revoke`,
    { token: jwt },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(revokeJwt.status, 200);
});

test("a token's details go to its own app or a resource server; any other app learns nothing", async () => {
  const rs = await server.registerApp({
    name: 'Events API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  const token = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'events:read' },
      { authorization: basic(machine.clientId, machine.secret!) },
    )
  ).json.access_token;
  const byOwner = await form(
    `${server.issuer}/oauth/introspect`,
    { token },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(byOwner.json.active, true);
  assert.equal(byOwner.json.client_id, machine.clientId);
  const byOther = await form(
    `${server.issuer}/oauth/introspect`,
    { token },
    { authorization: basic(other.clientId, other.secret!) },
  );
  assert.equal(byOther.status, 200);
  assert.deepEqual(
    byOther.json,
    { active: false },
    "an app that is not a resource server learns nothing of another app's token",
  );
  const byResourceServer = await form(
    `${server.issuer}/oauth/introspect`,
    { token, token_type_hint: 'access_token' },
    { authorization: basic(rs.clientId, rs.secret!) },
  );
  assert.equal(byResourceServer.json.active, true);
  assert.equal(byResourceServer.json.client_id, machine.clientId);
  assert.equal(byResourceServer.json.sub, machine.principalId);
  assert.equal(byResourceServer.json.scope, 'events:read');
});

test('an expired client-credentials token is inactive at introspection', async () => {
  const short = await server.registerApp({
    name: 'Short',
    appType: 'machine',
    allowedScopes: ['events:read'],
    accessTokenTtl: 1,
  });
  const t = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'events:read' },
    { authorization: basic(short.clientId, short.secret!) },
  );
  assert.equal(t.json.expires_in, 1);
  await new Promise((r) => setTimeout(r, 2100));
  const intro = await form(
    `${server.issuer}/oauth/introspect`,
    { token: t.json.access_token },
    { authorization: basic(short.clientId, short.secret!) },
  );
  assert.deepEqual(intro.json, { active: false });
});

test('every secret of an app works until revoked', async () => {
  const { createSecret, revokeSecret } = await import('../../src/identity/apps/store.ts');
  const app = await server.registerApp({ name: 'Rotating', appType: 'machine', allowedScopes: [] });
  const second = await createSecret(server.runtime.db, app.id);
  server.runtime.clients.invalidate(app.clientId);
  for (const s of [app.secret!, second.secret]) {
    const r = await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(app.clientId, s) },
    );
    assert.equal(r.status, 200, r.text);
  }
  assert.ok(await revokeSecret(server.runtime.db, app.id, second.id));
  server.runtime.clients.invalidate(app.clientId);
  const revoked = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic(app.clientId, second.secret) },
  );
  assert.equal(revoked.status, 401);
});
