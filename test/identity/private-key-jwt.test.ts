import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';

/**
 * private_key_jwt (RFC 7523 section 2.2) for apps with a registered key, and a discovery document that lists what the
 * server does. The assertions are made here with `jose` alone, as a client library would make them.
 */

const ADMIN_TOKEN = 'private-key-jwt-admin-token-0123456789';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let server: Server;
let machine: { clientId: string; secret: string | undefined; principalId: string };
let es256: { publicKey: CryptoKey; privateKey: CryptoKey };
let rs256: { publicKey: CryptoKey; privateKey: CryptoKey };

const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const tokenEndpoint = () => `${server.issuer}/oauth/token`;

async function registerKey(principalId: string, publicKey: CryptoKey, alg: 'ES256' | 'RS256', kid: string) {
  return api(`/principals/${principalId}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(publicKey), key_algorithm: alg, key_id: kid },
  });
}

/** A client assertion as RFC 7523 section 3 describes it; `claims` overrides any of its claims. */
function clientAssertion(
  key: CryptoKey,
  alg: 'ES256' | 'RS256',
  kid: string | undefined,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: machine.clientId,
    sub: machine.clientId,
    aud: tokenEndpoint(),
    jti: randomUUID(),
    iat: now,
    exp: now + 60,
    ...claims,
  })
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .sign(key);
}

const withAssertion = (assertion: string, body: Record<string, string> = { grant_type: 'client_credentials' }) =>
  form(tokenEndpoint(), { ...body, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });

function assertInvalidClient(r: { status: number; json: any; text: string }, what: string) {
  assert.equal(r.status, 401, `${what}: ${r.text}`);
  assert.equal(r.json.error, 'invalid_client', what);
  assert.equal(typeof r.json.error_description, 'string', what);
  assert.equal(r.json.access_token, undefined, what);
}

before(async () => {
  server = await startServer('idpkjwt', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN, IDENTITY_EXTRA_SCOPES: 'reports:read' });
  machine = await server.registerApp({ name: 'Batch', appType: 'machine', allowedScopes: ['reports:read'] });
  es256 = await generateKeyPair('ES256', { extractable: true });
  rs256 = await generateKeyPair('RS256', { extractable: true });
  assert.equal((await registerKey(machine.principalId, es256.publicKey, 'ES256', 'batch-es')).status, 201);
  assert.equal((await registerKey(machine.principalId, rs256.publicKey, 'RS256', 'batch-rs')).status, 201);
});
after(async () => server?.close());

test('discovery lists every grant the token endpoint takes and private_key_jwt among the client authentication methods', async () => {
  const d = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as any;
  assert.deepEqual([...d.grant_types_supported].sort(), [
    'authorization_code',
    'client_credentials',
    'refresh_token',
    'urn:ietf:params:oauth:grant-type:device_code',
    JWT_BEARER,
    TOKEN_EXCHANGE,
  ]);
  assert.deepEqual([...d.token_endpoint_auth_methods_supported].sort(), [
    'client_secret_basic',
    'client_secret_post',
    'none',
    'private_key_jwt',
  ]);
  assert.deepEqual([...d.token_endpoint_auth_signing_alg_values_supported].sort(), ['ES256', 'RS256']);
  assert.deepEqual([...d.introspection_endpoint_auth_methods_supported].sort(), [
    'client_secret_basic',
    'private_key_jwt',
  ]);
  assert.ok(d.revocation_endpoint_auth_methods_supported.includes('private_key_jwt'));
});

test('an app with a registered key gets a client-credentials token with a client assertion (ES256 and RS256)', async () => {
  for (const [key, alg, kid] of [
    [es256.privateKey, 'ES256', 'batch-es'],
    [rs256.privateKey, 'RS256', 'batch-rs'],
  ] as const) {
    const r = await withAssertion(await clientAssertion(key, alg, kid), {
      grant_type: 'client_credentials',
      scope: 'reports:read',
    });
    assert.equal(r.status, 200, `${alg}: ${r.text}`);
    assert.equal(r.json.token_type, 'Bearer');
    assert.equal(r.json.scope, 'reports:read');
    const intro = await form(
      `${server.issuer}/oauth/introspect`,
      { token: r.json.access_token },
      { authorization: basic(machine.clientId, machine.secret!) },
    );
    assert.equal(intro.json.active, true, intro.text);
    assert.equal(intro.json.client_id, machine.clientId);
  }
  // The issuer is an accepted audience too (RFC 7523 section 3, and its update for the issuer identifier).
  const byIssuer = await withAssertion(
    await clientAssertion(es256.privateKey, 'ES256', 'batch-es', { aud: server.issuer }),
  );
  assert.equal(byIssuer.status, 200, byIssuer.text);
  // The app's secret still works beside its keys.
  const bySecret = await form(
    tokenEndpoint(),
    { grant_type: 'client_credentials' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(bySecret.status, 200, bySecret.text);
});

test('a replayed assertion, a wrong key, an expired or long-lived assertion and a wrong audience are invalid_client', async () => {
  const once = await clientAssertion(es256.privateKey, 'ES256', 'batch-es');
  assert.equal((await withAssertion(once)).status, 200);
  assertInvalidClient(await withAssertion(once), 'the same jti again');

  const stranger = await generateKeyPair('ES256');
  assertInvalidClient(
    await withAssertion(await clientAssertion(stranger.privateKey, 'ES256', 'batch-es')),
    'wrong key',
  );
  assertInvalidClient(
    await withAssertion(await clientAssertion(rs256.privateKey, 'RS256', 'batch-es')),
    "another of the app's keys than the kid names",
  );
  const now = Math.floor(Date.now() / 1000);
  assertInvalidClient(
    await withAssertion(
      await clientAssertion(es256.privateKey, 'ES256', 'batch-es', { iat: now - 600, exp: now - 300 }),
    ),
    'expired',
  );
  assertInvalidClient(
    await withAssertion(await clientAssertion(es256.privateKey, 'ES256', 'batch-es', { exp: now + 3600 })),
    'an hour long: beyond the five minutes an assertion may live',
  );
  assertInvalidClient(
    await withAssertion(
      await clientAssertion(es256.privateKey, 'ES256', 'batch-es', { aud: 'https://elsewhere.example/oauth/token' }),
    ),
    'wrong audience',
  );
  assertInvalidClient(
    await withAssertion(await clientAssertion(es256.privateKey, 'ES256', undefined)),
    'no kid naming the key',
  );
  assertInvalidClient(
    await withAssertion(await clientAssertion(es256.privateKey, 'ES256', 'batch-es', { iss: 'someone-else' })),
    'iss not the client',
  );
});

test("another principal's key does not authenticate the app, and a revoked key stops at once", async () => {
  const service = await api('/principals', {
    method: 'POST',
    body: { type: 'service', name: 'pkjwt-other', service_type: 'worker' },
  });
  assert.equal(service.status, 201, JSON.stringify(service.body));
  const theirs = await generateKeyPair('ES256', { extractable: true });
  assert.equal((await registerKey(service.body.id, theirs.publicKey, 'ES256', 'not-batch')).status, 201);
  assertInvalidClient(
    await withAssertion(await clientAssertion(theirs.privateKey, 'ES256', 'not-batch')),
    "a service's key, not the app's",
  );

  const rotating = await generateKeyPair('ES256', { extractable: true });
  const made = await registerKey(machine.principalId, rotating.publicKey, 'ES256', 'batch-rotating');
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(
    (await withAssertion(await clientAssertion(rotating.privateKey, 'ES256', 'batch-rotating'))).status,
    200,
    'a key counts as soon as it is registered',
  );
  const revoked = await api(`/principals/${machine.principalId}/credentials/${made.body.credential.id}/revoke`, {
    method: 'POST',
    body: { reason: 'rotated' },
  });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assertInvalidClient(
    await withAssertion(await clientAssertion(rotating.privateKey, 'ES256', 'batch-rotating')),
    'a revoked key',
  );
});

test('introspection takes a client assertion as it takes HTTP Basic; a secret in the body stays refused there', async () => {
  const issued = await withAssertion(await clientAssertion(es256.privateKey, 'ES256', 'batch-es'));
  assert.equal(issued.status, 200, issued.text);
  const introspectAssertion = await clientAssertion(es256.privateKey, 'ES256', 'batch-es', {
    aud: `${server.issuer}/oauth/introspect`,
  });
  const intro = await form(`${server.issuer}/oauth/introspect`, {
    token: issued.json.access_token,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: introspectAssertion,
  });
  assert.equal(intro.status, 200, intro.text);
  assert.equal(intro.json.active, true);
  assert.deepEqual(intro.json.aud, [machine.clientId]);
  assert.equal(intro.json.username, machine.clientId);
  const replayed = await form(`${server.issuer}/oauth/introspect`, {
    token: issued.json.access_token,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: introspectAssertion,
  });
  assertInvalidClient(replayed, 'a replayed assertion at introspection');
  const posted = await form(`${server.issuer}/oauth/introspect`, {
    token: issued.json.access_token,
    client_id: machine.clientId,
    client_secret: machine.secret!,
  });
  assertInvalidClient(posted, 'client_secret_post at introspection');
});

test("keys are for confidential apps, and an app's key is no authorization grant", async () => {
  const spa = await server.registerApp({ name: 'SPA', appType: 'spa', redirectUris: ['http://localhost:5173/cb'] });
  const refused = await registerKey(spa.principalId, es256.publicKey, 'ES256', 'spa-key');
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
  assert.match(refused.body.error.message, /public app/);

  const now = Math.floor(Date.now() / 1000);
  const grant = await new SignJWT({
    iss: machine.principalId,
    sub: machine.principalId,
    aud: tokenEndpoint(),
    jti: randomUUID(),
    exp: now + 60,
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'batch-es' })
    .sign(es256.privateKey);
  const r = await form(
    tokenEndpoint(),
    { grant_type: JWT_BEARER, assertion: grant },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.error, 'invalid_grant');
});
