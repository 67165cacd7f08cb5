import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { SignJWT, exportJWK, generateKeyPair, calculateJwkThumbprint } from 'jose';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { identityCommand } from '../../src/identity/cli/command.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';

let server: Server;
let as: oauth.AuthorizationServer;
let machine: { clientId: string; secret: string | undefined };
const alice = { email: 'alice@example.com', password: 'correct horse battery staple' };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

before(async () => {
  server = await startServer('iddpop', { IDENTITY_EXTRA_SCOPES: 'events:read' });
  machine = await server.registerApp({ name: 'Collector', appType: 'machine', allowedScopes: ['events:read'] });
  await server.createHuman(alice.email, alice.password);
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
after(async () => server?.close());

/** A DPoP proof made by hand, so that each of its claims can be got wrong on purpose. */
async function proof(
  keys: Awaited<ReturnType<typeof generateKeyPair>>,
  claims: { htm?: string; htu?: string; iat?: number; jti?: string; ath?: string },
): Promise<string> {
  const jwk = await exportJWK(keys.publicKey);
  return new SignJWT({ htm: 'POST', htu: `${server.issuer}/oauth/token`, jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(keys.privateKey);
}

/** The authorization code flow with PKCE through the sign-in page (first-party apps skip consent). */
async function codeFlow(
  client: oauth.Client,
  auth: oauth.ClientAuth,
  who: { email: string; password: string },
  scope: string,
  DPoP?: oauth.DPoPHandle,
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  const params = oauth.validateAuthResponse(as, client, new URL(callback), oauth.expectNoState);
  const res = await oauth.authorizationCodeGrantRequest(as, client, auth, params, CALLBACK, verifier, {
    ...(DPoP ? { DPoP } : {}),
    ...insecure,
  });
  return {
    tokens: await oauth.processAuthorizationCodeResponse(as, client, res, { expectedNonce: oauth.expectNoNonce }),
  };
}

function clientCredentials(
  dpop: string | undefined,
  app: { clientId: string; secret: string | undefined } = machine,
  scope = 'events:read',
) {
  return form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    { authorization: basic(app.clientId, app.secret!), ...(dpop ? { dpop } : {}) },
  );
}

test('discovery advertises the DPoP signing algorithms', () => {
  assert.ok(as.dpop_signing_alg_values_supported?.includes('ES256'));
  assert.ok(as.dpop_signing_alg_values_supported?.includes('EdDSA'));
});

test('oauth4webapi: client credentials with a DPoP proof give a bound token; introspection shows cnf.jkt; the row keeps dpop_jkt', async () => {
  const keys = await oauth.generateKeyPair('ES256');
  const client: oauth.Client = { client_id: machine.clientId };
  const auth = oauth.ClientSecretBasic(machine.secret!);
  const DPoP = oauth.DPoP(client, keys);
  const res = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    auth,
    new URLSearchParams({ scope: 'events:read' }),
    { DPoP, ...insecure },
  );
  const tokens = await oauth.processClientCredentialsResponse(as, client, res);
  assert.equal(tokens.token_type, 'dpop');
  const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));

  const intro = await oauth.processIntrospectionResponse(
    as,
    client,
    await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
  );
  assert.equal(intro.active, true);
  assert.equal(intro.token_type, 'DPoP');
  assert.deepEqual(intro.cnf, { jkt });

  const rows = await server.runtime.db.query<{ dpop_jkt: string | null }>(
    "SELECT dpop_jkt FROM oauth_tokens WHERE kind = 'client_credentials' AND client_id = $1",
    [machine.clientId],
  );
  assert.deepEqual(
    rows.rows.map((r) => r.dpop_jkt),
    [jkt],
  );

  // Without a proof the same app still gets a plain bearer token, with no cnf at introspection.
  const bearer = await clientCredentials(undefined);
  assert.equal(bearer.status, 200, bearer.text);
  assert.equal(bearer.json.token_type, 'Bearer');
  const plain = await form(
    `${server.issuer}/oauth/introspect`,
    { token: bearer.json.access_token },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(plain.json.active, true);
  assert.equal(plain.json.cnf, undefined);
});

test('a replayed proof (same jti) is refused', async () => {
  const keys = await generateKeyPair('ES256');
  const once = await proof(keys, {});
  assert.equal((await clientCredentials(once)).status, 200);
  const again = await clientCredentials(once);
  assert.equal(again.status, 400, again.text);
  // The provider keeps invalid_grant's description generic; the same request with a fresh proof passes.
  assert.equal(again.json.error, 'invalid_grant');
  assert.equal((await clientCredentials(await proof(keys, {}))).status, 200);
});

test('a proof for another method, another URL, or too old is refused as invalid_dpop_proof', async () => {
  const keys = await generateKeyPair('ES256');
  const cases: [string, Parameters<typeof proof>[1], RegExp][] = [
    ['wrong htm', { htm: 'GET' }, /htm/],
    ['wrong htu', { htu: `${server.issuer}/oauth/introspect` }, /htu/],
    ['another host', { htu: 'https://elsewhere.example/oauth/token' }, /htu/],
    ['stale iat', { iat: Math.floor(Date.now() / 1000) - 3600 }, /iat/],
    ['iat in the future', { iat: Math.floor(Date.now() / 1000) + 3600 }, /iat/],
  ];
  for (const [label, claims, message] of cases) {
    const res = await clientCredentials(await proof(keys, claims));
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    assert.equal(res.json.error, 'invalid_dpop_proof', label);
    assert.match(res.json.error_description, message, label);
  }
  const garbage = await clientCredentials('not-a-jwt');
  assert.equal(garbage.status, 400);
  assert.equal(garbage.json.error, 'invalid_dpop_proof');
});

test('an app flagged dpop_bound_access_tokens must send a proof', async () => {
  const strict = await server.registerApp({
    name: 'Strict',
    appType: 'machine',
    allowedScopes: ['events:read'],
    dpopBoundAccessTokens: true,
  });
  const without = await clientCredentials(undefined, strict);
  assert.equal(without.status, 400, without.text);
  assert.equal(without.json.error, 'invalid_grant');
  const withProof = await clientCredentials(await proof(await generateKeyPair('ES256'), {}), strict);
  assert.equal(withProof.status, 200, withProof.text);
  assert.equal(withProof.json.token_type, 'DPoP');
});

test('the management API and the CLI set dpop_bound_access_tokens', async () => {
  const root = { email: 'root@example.com', password: 'a long admin passphrase' };
  await server.createHuman(root.email, root.password, true);
  const consoleApp = await server.registerApp({
    name: 'Admin Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    allowedScopes: ['openid', 'admin'],
    firstParty: true,
  });
  const client: oauth.Client = { client_id: consoleApp.clientId };
  const { tokens } = await codeFlow(client, oauth.ClientSecretBasic(consoleApp.secret!), root, 'openid admin');
  const created = await fetch(`${server.issuer}/api/v1/applications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Agent runner', app_type: 'service', dpop_bound_access_tokens: true }),
  });
  assert.equal(created.status, 201);
  const body = (await created.json()) as any;
  assert.equal(body.application.dpop_bound_access_tokens, true);
  const viaApi = { clientId: body.application.client_id, secret: body.client_secret };
  assert.equal((await clientCredentials(undefined, viaApi, '')).json.error, 'invalid_grant');

  // The API-key grant issues bearer tokens only, so an app that must use DPoP is refused there too.
  const adminApi = (path: string, payload: unknown) =>
    fetch(`${server.issuer}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const svc = await adminApi('/principals', {
    type: 'service',
    name: 'nightly-agent',
    service_type: 'worker',
    allowed_scopes: [],
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  const key = await adminApi(`/principals/${svc.body.id}/credentials`, { type: 'api_key' });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  const exchanged = await form(
    `${server.issuer}/oauth/token`,
    {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: key.body.api_key,
      subject_token_type: 'urn:platform:params:oauth:token-type:api-key',
    },
    { authorization: basic(viaApi.clientId, viaApi.secret), dpop: await proof(await generateKeyPair('ES256'), {}) },
  );
  assert.equal(exchanged.status, 400, exchanged.text);
  assert.equal(exchanged.json.error, 'invalid_grant');

  const wrongType = await fetch(`${server.issuer}/api/v1/applications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x', app_type: 'service', dpop_bound_access_tokens: 'yes' }),
  });
  assert.equal(wrongType.status, 400);

  const out: string[] = [];
  const code = await identityCommand(
    ['apps', 'create', '--name', 'CLI agent', '--type', 'service', '--dpop'],
    loadIdentityConfig(server.env),
    { out: (l) => out.push(l), err: () => {} },
  );
  assert.equal(code, 0);
  assert.match(out.join('\n'), /DPoP required/);
  const viaCli = {
    clientId: /client_id: (\S+)/.exec(out.join('\n'))![1]!,
    secret: /client_secret \(shown once\): (\S+)/.exec(out.join('\n'))![1]!,
  };
  assert.equal((await clientCredentials(undefined, viaCli, '')).json.error, 'invalid_grant');
  assert.equal(
    (await clientCredentials(await proof(await generateKeyPair('ES256'), {}), viaCli, '')).json.token_type,
    'DPoP',
  );
});

test("a public app's DPoP-bound refresh token needs a proof by the same key; userinfo needs one for a bound access token", async () => {
  const spa = await server.registerApp({
    name: 'Single page',
    appType: 'spa',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const client: oauth.Client = { client_id: spa.clientId };
  const auth = oauth.None();
  const keys = await oauth.generateKeyPair('ES256');
  const DPoP = oauth.DPoP(client, keys);

  const { tokens } = await codeFlow(client, auth, alice, 'openid email offline_access', DPoP);
  assert.equal(tokens.token_type, 'dpop');
  assert.ok(tokens.refresh_token);

  // userinfo: the bound access token with its proof works; as a plain bearer token, or with a DPoP header but no proof, it does not.
  const info = await oauth.userInfoRequest(as, client, tokens.access_token, { DPoP, ...insecure });
  assert.equal(info.status, 200);
  const asBearer = await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(asBearer.status, 401);
  const noProof = await fetch(as.userinfo_endpoint!, { headers: { authorization: `DPoP ${tokens.access_token}` } });
  assert.equal(asBearer.headers.get('www-authenticate')?.startsWith('DPoP '), true);
  assert.equal(noProof.status, 400);
  assert.equal(((await noProof.json()) as any).error, 'invalid_request');
  const ath = createHash('sha256').update(tokens.access_token).digest('base64url');
  const otherKeyProof = await proof(await generateKeyPair('ES256'), { htm: 'GET', htu: as.userinfo_endpoint!, ath });
  const wrongKey = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `DPoP ${tokens.access_token}`, dpop: otherKeyProof },
  });
  assert.equal(wrongKey.status, 401);
  assert.equal(((await wrongKey.json()) as any).error, 'invalid_token');

  // refresh: without a proof, or with another key's proof, refused; with the same key, a new bound pair.
  const bare = await form(`${server.issuer}/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token!,
    client_id: spa.clientId,
  });
  assert.equal(bare.status, 400, bare.text);
  assert.equal(bare.json.error, 'invalid_grant');
  const otherKey = await generateKeyPair('ES256');
  const stolen = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: spa.clientId },
    { dpop: await proof(otherKey, {}) },
  );
  assert.equal(stolen.status, 400, stolen.text);
  assert.equal(stolen.json.error, 'invalid_grant');
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, { DPoP, ...insecure }),
  );
  assert.equal(refreshed.token_type, 'dpop');
  assert.notEqual(refreshed.access_token, tokens.access_token);
});
