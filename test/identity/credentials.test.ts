import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

const API_KEY = 'urn:platform:params:oauth:token-type:api-key';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let server: Server;
let adminToken: string;
let exchanger: { clientId: string; secret: string | undefined };
let resourceServer: { clientId: string; secret: string | undefined };
const admin = { email: 'cred-admin@example.com', password: 'a long admin passphrase' };

const api = managementApi(
  () => server.issuer,
  () => adminToken,
);
const token = (body: Record<string, string>, by = exchanger) =>
  form(`${server.issuer}/oauth/token`, body, { authorization: basic(by.clientId, by.secret!) });
const exchange = (apiKey: string, extra: Record<string, string> = {}) =>
  token({ grant_type: EXCHANGE, subject_token: apiKey, subject_token_type: API_KEY, ...extra });
const introspect = (t: string) =>
  form(
    `${server.issuer}/oauth/introspect`,
    { token: t },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  );

async function service(name: string, scopes = ['reports:read', 'reports:write']) {
  const r = await api('/principals', {
    method: 'POST',
    body: { type: 'service', name, service_type: 'worker', allowed_scopes: scopes },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as { id: string; identifier: string };
}

before(async () => {
  server = await startServer('idcreds', { IDENTITY_EXTRA_SCOPES: 'reports:read,reports:write' });
  await server.createHuman(admin.email, admin.password, true);
  const app = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'admin'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid admin',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, admin);
  adminToken = (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }))
    .access_token;
  exchanger = await server.registerApp({
    name: 'Gateway',
    appType: 'machine',
    allowedScopes: ['reports:read', 'reports:write'],
  });
  resourceServer = await server.registerApp({
    name: 'Reports API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
});
after(async () => server?.close());

test('an API key is shown once, prefixed, and exchanged at the token endpoint for a token of its service principal', async () => {
  const svc = await service('exporter');
  const made = await api(`/principals/${svc.id}/credentials`, {
    method: 'POST',
    body: { type: 'api_key', name: 'nightly', scopes: ['reports:read'] },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const key = made.body.api_key as string;
  assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
  assert.equal(made.body.credential.type, 'api_key');
  assert.ok(key.startsWith(made.body.credential.identifier));
  assert.equal(made.body.credential.secret_hash, undefined);
  const listed = await api(`/principals/${svc.id}/credentials`);
  assert.ok(!JSON.stringify(listed.body).includes(key), 'never shown again');

  const r = await exchange(key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.token_type, 'Bearer');
  assert.equal(r.json.scope, 'reports:read', "the key's scopes bound the token");
  assert.equal(r.json.issued_token_type, 'urn:ietf:params:oauth:token-type:access_token');
  assert.ok(r.json.expires_in > 0 && r.json.expires_in <= 900);
  const intro = await introspect(r.json.access_token);
  assert.equal(intro.json.active, true);
  assert.equal(intro.json.sub, svc.id);
  assert.equal(intro.json.username, 'exporter');
  assert.equal(intro.json.client_id, exchanger.clientId);
  const used = await api(`/principals/${svc.id}/credentials/${made.body.credential.id}`);
  assert.ok(used.body.last_used_at);
  assert.equal(used.body.last_used_ip, '127.0.0.1');

  const widened = await exchange(key, { scope: 'reports:write' });
  assert.equal(widened.status, 400);
  assert.equal(widened.json.error, 'invalid_scope');
  const dump =
    JSON.stringify((await server.runtime.db.query('SELECT * FROM credentials')).rows) +
    JSON.stringify((await server.runtime.db.query('SELECT * FROM oauth_tokens')).rows);
  assert.ok(
    !dump.includes(key) && !dump.includes(r.json.access_token),
    'neither the key nor the token is stored in clear',
  );
});

test('bad API-key exchanges get the OAuth error codes', async () => {
  const svc = await service('bad-exchanges');
  const key = (await api(`/principals/${svc.id}/credentials`, { method: 'POST', body: { type: 'api_key' } })).body
    .api_key as string;
  assert.equal(
    (await exchange(key)).json.scope,
    'reports:read reports:write',
    'without scopes the key carries what app and principal allow',
  );
  const wrong = await exchange(`sk_${'x'.repeat(43)}`);
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error, 'invalid_grant');
  assert.equal((await exchange('not-even-a-key')).json.error, 'invalid_grant');
  const wrongType = await token({
    grant_type: EXCHANGE,
    subject_token: key,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  });
  assert.equal(wrongType.json.error, 'invalid_request');
  assert.equal((await token({ grant_type: EXCHANGE, subject_token_type: API_KEY })).json.error, 'invalid_request');
  const anonymous = await form(`${server.issuer}/oauth/token`, {
    grant_type: EXCHANGE,
    subject_token: key,
    subject_token_type: API_KEY,
  });
  assert.notEqual(anonymous.status, 200, 'the exchanging app authenticates');
  assert.ok(['invalid_request', 'invalid_client'].includes(anonymous.json.error), anonymous.text);
  const web = await server.registerApp({ name: 'Web', appType: 'web', redirectUris: [CALLBACK] });
  const notAllowed = await token({ grant_type: EXCHANGE, subject_token: key, subject_token_type: API_KEY }, web);
  assert.equal(notAllowed.json.error, 'unauthorized_client', 'only apps allowed client credentials exchange keys');
  const narrowApp = await server.registerApp({ name: 'Narrow', appType: 'machine', allowedScopes: ['reports:read'] });
  assert.equal((await exchange(key, { scope: 'reports:write' })).status, 200);
  assert.equal(
    (
      await token(
        { grant_type: EXCHANGE, subject_token: key, subject_token_type: API_KEY, scope: 'reports:write' },
        narrowApp,
      )
    ).json.error,
    'invalid_scope',
  );
  assert.equal((await exchange(key, { scope: 'openid' })).json.error, 'invalid_scope');

  const human = await api('/principals', { method: 'POST', body: { type: 'human', email: 'keyless@example.com' } });
  assert.equal(
    (await api(`/principals/${human.body.id}/credentials`, { method: 'POST', body: { type: 'api_key' } })).status,
    400,
    'API keys are for services',
  );
  assert.equal(
    (await api(`/principals/${svc.id}/credentials`, { method: 'POST', body: { type: 'api_key', scopes: ['made:up'] } }))
      .status,
    400,
  );
  assert.equal(
    (
      await api(`/principals/${svc.id}/credentials`, {
        method: 'POST',
        body: { type: 'api_key', expires_at: '2001-01-01T00:00:00Z' },
      })
    ).status,
    400,
  );
  assert.equal(
    (await api(`/principals/${svc.id}/credentials`, { method: 'POST', body: { type: 'totp' } })).status,
    400,
  );
  assert.equal(
    (
      await api('/principals/00000000-0000-4000-8000-000000000000/credentials', {
        method: 'POST',
        body: { type: 'api_key' },
      })
    ).status,
    404,
  );
});

test('an expired or revoked API key is refused, a revocation keeps its reason, and a deactivated principal gets no token', async () => {
  const svc = await service('lifecycle');
  const make = async () =>
    (
      await api(`/principals/${svc.id}/credentials`, {
        method: 'POST',
        body: { type: 'api_key', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
      })
    ).body;
  const expiring = await make();
  assert.equal((await exchange(expiring.api_key)).status, 200);
  await server.runtime.db.query("UPDATE credentials SET expires_at = now() - interval '1 second' WHERE id = $1", [
    expiring.credential.id,
  ]);
  assert.equal((await exchange(expiring.api_key)).json.error, 'invalid_grant', 'expired');

  const revocable = await make();
  const revoked = await api(`/principals/${svc.id}/credentials/${revocable.credential.id}/revoke`, {
    method: 'POST',
    body: { reason: 'leaked in a log' },
  });
  assert.equal(revoked.status, 200);
  assert.equal(revoked.body.revoked, true);
  assert.equal(revoked.body.revoked_reason, 'leaked in a log');
  assert.ok(revoked.body.revoked_at);
  assert.equal((await exchange(revocable.api_key)).json.error, 'invalid_grant', 'revoked');
  assert.equal(
    (
      await api(`/principals/${svc.id}/credentials/${revocable.credential.id}/revoke`, {
        method: 'POST',
        body: { reason: 'again' },
      })
    ).status,
    409,
  );
  assert.equal(
    (await api(`/principals/${svc.id}/credentials/${revocable.credential.id}/revoke`, { method: 'POST', body: {} }))
      .status,
    400,
  );
  assert.equal(
    (
      await api(`/principals/${svc.id}/credentials/00000000-0000-4000-8000-000000000000/revoke`, {
        method: 'POST',
        body: { reason: 'x' },
      })
    ).status,
    404,
  );

  const live = await make();
  const issued = (await exchange(live.api_key)).json.access_token;
  assert.equal((await introspect(issued)).json.active, true);
  await api(`/principals/${svc.id}/deactivate`, { method: 'POST' });
  assert.deepEqual((await introspect(issued)).json, { active: false }, "a deactivated principal's tokens stop at once");
  assert.equal((await exchange(live.api_key)).json.error, 'invalid_grant');
});

async function assertion(
  key: CryptoKey,
  alg: string,
  kid: string,
  sub: string,
  claims: { aud?: string; exp?: number; jti?: string; iss?: string } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg, kid })
    .setIssuer(claims.iss ?? sub)
    .setSubject(sub)
    .setAudience(claims.aud ?? server.issuer)
    .setIssuedAt(now)
    .setExpirationTime(claims.exp ?? now + 60)
    .setJti(claims.jti ?? randomUUID())
    .sign(key);
}

test('a key pair: the principal signs an assertion (RFC 7523) whose kid selects its key; RS256 and ES256', async () => {
  const agent = (
    await api('/principals', {
      method: 'POST',
      body: { type: 'agent', name: 'signer', model_id: 'm', allowed_scopes: ['reports:read'] },
    })
  ).body;
  for (const alg of ['RS256', 'ES256'] as const) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const made = await api(`/principals/${agent.id}/credentials`, {
      method: 'POST',
      body: { type: 'keypair', public_key: await exportSPKI(publicKey), key_algorithm: alg, key_id: `signer-${alg}` },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.credential.key_id, `signer-${alg}`);
    assert.equal(made.body.credential.key_algorithm, alg);
    assert.match(made.body.credential.public_key, /^-----BEGIN PUBLIC KEY-----/);
    const jwt = await assertion(privateKey, alg, `signer-${alg}`, agent.id);
    const r = await token({ grant_type: JWT_BEARER, assertion: jwt });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.scope, 'reports:read');
    const intro = await introspect(r.json.access_token);
    assert.equal(intro.json.sub, agent.id);
    const replay = await token({ grant_type: JWT_BEARER, assertion: jwt });
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant', 'a replayed jti is refused');
  }
  const viaEndpoint = await assertion(
    (await registered(agent.id, 'aud-endpoint')).privateKey,
    'RS256',
    'aud-endpoint',
    agent.id,
    { aud: `${server.issuer}/oauth/token` },
  );
  assert.equal(
    (await token({ grant_type: JWT_BEARER, assertion: viaEndpoint })).status,
    200,
    'the token endpoint is an accepted audience too',
  );
});

async function registered(principalId: string, kid: string) {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const r = await api(`/principals/${principalId}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(pair.publicKey), key_id: kid },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { ...pair, credentialId: r.body.credential.id as string };
}

test('bad assertions are refused: unknown kid, wrong key, wrong alg, audience, subject, lifetime, expired, revoked', async () => {
  const svc = await service('asserter', ['reports:read']);
  const other = await service('someone-else', ['reports:read']);
  const { privateKey, credentialId } = await registered(svc.id, 'asserter-key');
  const stranger = await generateKeyPair('RS256');
  const es = await generateKeyPair('ES256');
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, string][] = [
    ['unknown kid', await assertion(privateKey, 'RS256', 'no-such-kid', svc.id)],
    ['signed by another key', await assertion(stranger.privateKey, 'RS256', 'asserter-key', svc.id)],
    ['another alg', await assertion(es.privateKey, 'ES256', 'asserter-key', svc.id)],
    [
      'wrong audience',
      await assertion(privateKey, 'RS256', 'asserter-key', svc.id, { aud: 'https://elsewhere.example' }),
    ],
    ['another subject', await assertion(privateKey, 'RS256', 'asserter-key', other.id)],
    ['issuer not the subject', await assertion(privateKey, 'RS256', 'asserter-key', svc.id, { iss: 'someone' })],
    ['lives an hour', await assertion(privateKey, 'RS256', 'asserter-key', svc.id, { exp: now + 3600 })],
    ['expired', await assertion(privateKey, 'RS256', 'asserter-key', svc.id, { exp: now - 120 })],
    ['not a JWT', 'not.a.jwt'],
  ];
  for (const [what, jwt] of cases) {
    const r = await token({ grant_type: JWT_BEARER, assertion: jwt });
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.equal(r.json.error, 'invalid_grant', `${what}: ${r.text}`);
  }
  assert.equal((await token({ grant_type: JWT_BEARER })).json.error, 'invalid_request');
  await api(`/principals/${svc.id}/credentials/${credentialId}/revoke`, {
    method: 'POST',
    body: { reason: 'rotated' },
  });
  assert.equal(
    (await token({ grant_type: JWT_BEARER, assertion: await assertion(privateKey, 'RS256', 'asserter-key', svc.id) }))
      .json.error,
    'invalid_grant',
    'a revoked key',
  );

  assert.equal(
    (
      await api(`/principals/${svc.id}/credentials`, {
        method: 'POST',
        body: { type: 'keypair', public_key: 'not a key' },
      })
    ).status,
    400,
  );
  const ecAsRsa = await api(`/principals/${svc.id}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(es.publicKey), key_algorithm: 'RS256' },
  });
  assert.equal(ecAsRsa.status, 400, 'the key must suit its algorithm');
  const dup = await api(`/principals/${other.id}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(stranger.publicKey), key_id: 'asserter-key' },
  });
  assert.equal(dup.status, 409);
  const human = await api('/principals', { method: 'POST', body: { type: 'human', email: 'no-keys@example.com' } });
  assert.equal(
    (
      await api(`/principals/${human.body.id}/credentials`, {
        method: 'POST',
        body: { type: 'keypair', public_key: await exportSPKI(stranger.publicKey) },
      })
    ).status,
    400,
  );
});

test('a password is changed with the same slow hash; the old one is revoked as replaced and no longer signs in', async () => {
  const who = { email: 'pat@example.com', password: 'pat first long password' };
  const id = await server.createHuman(who.email, who.password);
  const signIn = async (password: string) => {
    const app = await server.registerApp({
      name: 'App',
      appType: 'web',
      redirectUris: [CALLBACK],
      firstParty: true,
      allowedScopes: ['openid'],
    });
    const config = await oidc.discovery(
      new URL(server.issuer),
      app.clientId,
      app.secret,
      oidc.ClientSecretBasic(app.secret!),
      { execute: [oidc.allowInsecureRequests] },
    );
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    return authorizeInBrowser(server.issuer, new TestBrowser(), url.href, { email: who.email, password }).then(
      () => true,
      () => false,
    );
  };
  assert.equal((await api(`/principals/${id}/password`, { method: 'PUT', body: { password: 'short' } })).status, 400);
  assert.equal(
    (await api(`/principals/${id}/password`, { method: 'PUT', body: { password: 'pat second long password' } })).status,
    204,
  );
  assert.equal(await signIn('pat first long password'), false);
  assert.equal(await signIn('pat second long password'), true);
  const creds = (await api(`/principals/${id}/credentials`)).body.items.filter((c: any) => c.type === 'password');
  assert.equal(creds.length, 2);
  assert.deepEqual(
    creds.map((c: any) => [c.revoked, c.revoked_reason]),
    [
      [true, 'replaced'],
      [false, null],
    ],
  );
  const stored = await server.runtime.db.query<{ secret_hash: string }>(
    "SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password'",
    [id],
  );
  assert.ok(
    stored.rows.every((r) => r.secret_hash.startsWith('scrypt') || r.secret_hash.startsWith('$scrypt')),
    stored.rows.map((r) => r.secret_hash.slice(0, 10)).join(),
  );
  const svc = await service('no-password');
  assert.equal(
    (await api(`/principals/${svc.id}/password`, { method: 'PUT', body: { password: 'a long enough password' } }))
      .status,
    400,
  );
});

test("discovery lists the credential grants beside the contract's three", async () => {
  const d = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as any;
  assert.deepEqual(
    [...d.grant_types_supported].sort(),
    [
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      JWT_BEARER,
      EXCHANGE,
    ].sort(),
  );
});

// API keys, key pairs and jtis are read and written many per statement (credentials/lookup.ts): requests arriving
// together share one query, and each must still get its own principal, refusal or single use.
test('requests arriving together: each API key gets its own principal, a revoked one is refused, an assertion is spent once', async () => {
  const services = await Promise.all(['batch-a', 'batch-b', 'batch-c'].map((name) => service(name, ['reports:read'])));
  const keys = await Promise.all(
    services.map(
      async (s) => (await api(`/principals/${s.id}/credentials`, { method: 'POST', body: { type: 'api_key' } })).body,
    ),
  );
  const revoked = keys[2];
  assert.equal(
    (
      await api(`/principals/${services[2]!.id}/credentials/${revoked.credential.id}/revoke`, {
        method: 'POST',
        body: { reason: 'leaked' },
      })
    ).status,
    200,
  );

  const answers = await Promise.all([0, 1, 2, 0, 1, 2].map((i) => exchange(keys[i].api_key)));
  for (const [n, i] of [0, 1, 2, 0, 1, 2].entries()) {
    if (i === 2) {
      assert.equal(answers[n]!.status, 400, 'the revoked key is refused even in company');
      assert.equal(answers[n]!.json.error, 'invalid_grant');
      continue;
    }
    assert.equal(answers[n]!.status, 200, answers[n]!.text);
    assert.equal(
      (await introspect(answers[n]!.json.access_token)).json.sub,
      services[i]!.id,
      "each token speaks for its own key's principal",
    );
  }

  const { privateKey } = await registered(services[0]!.id, 'batch-signer');
  const jwt = await assertion(privateKey, 'RS256', 'batch-signer', services[0]!.id);
  const others = await Promise.all(
    [1, 2, 3].map(() => assertion(privateKey, 'RS256', 'batch-signer', services[0]!.id)),
  );
  const sameTwelveTimes = await Promise.all(
    Array.from({ length: 12 }, () => token({ grant_type: JWT_BEARER, assertion: jwt })),
  );
  const distinct = await Promise.all(others.map((a) => token({ grant_type: JWT_BEARER, assertion: a })));
  assert.equal(
    sameTwelveTimes.filter((r) => r.status === 200).length,
    1,
    'one assertion sent twelve times at once gives one token',
  );
  for (const r of sameTwelveTimes.filter((x) => x.status !== 200)) assert.equal(r.json.error, 'invalid_grant');
  assert.deepEqual(
    distinct.map((r) => r.status),
    [200, 200, 200],
    'distinct assertions of one key each give a token',
  );
});
