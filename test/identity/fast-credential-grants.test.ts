import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { createOrganization, addMember } from '../../src/identity/organizations/store.ts';
import { assertHandedOver, assertIssuedAlike, assertStoredAlike, tokenPaths } from './fast-paths.ts';

// POST /oauth/token has two paths for an API key exchanged for a token (RFC 8693) and for a key pair's assertion (RFC 7523):
// the fast route (src/identity/credentials/fast-grants.ts) issues the ordinary request through the provider's own model,
// anything else goes to the provider's grants (credentials/grants.ts). fast-paths.ts makes the same request of both and
// tells which path answered (an assertion being single-use, each path gets its own).

const ADMIN_TOKEN = 'identity-admin-token-fast-credential-grants';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const API_KEY = 'urn:platform:params:oauth:token-type:api-key';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let server: Server;
type Registered = Awaited<ReturnType<Server['registerApp']>>;
let exchanger: Registered;
let svc: { id: string };
let key: string;
let paths: ReturnType<typeof tokenPaths>;

const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

async function newKey(principalId: string, body: Record<string, unknown> = {}): Promise<{ key: string; id: string }> {
  const r = await api(`/principals/${principalId}/credentials`, { method: 'POST', body: { type: 'api_key', ...body } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { key: r.body.api_key, id: r.body.credential.id };
}

before(async () => {
  server = await startServer('fast_credential_grants', {
    IDENTITY_EXTRA_SCOPES: 'reports:read,reports:write',
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  exchanger = await server.registerApp({
    name: 'Exchanger',
    appType: 'machine',
    allowedScopes: ['reports:read', 'reports:write'],
    accessTokenTtl: 1234,
  });
  const made = await api('/principals', {
    method: 'POST',
    body: {
      type: 'service',
      name: 'nightly-job',
      service_type: 'worker',
      allowed_scopes: ['reports:read', 'reports:write'],
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  svc = made.body;
  key = (await newKey(svc.id)).key;
  paths = tokenPaths(server);
});
after(() => server.close());

const tokenUrl = () => paths.tokenUrl;
const auth = (app: Registered = exchanger) => ({
  authorization: basic(app.clientId, app.secret!),
  'user-agent': 'fast-credential-grants-test/1',
});
const exchangeParams = (subject: string, extra: Record<string, string> = {}) => ({
  grant_type: EXCHANGE,
  subject_token: subject,
  subject_token_type: API_KEY,
  ...extra,
});

const both = (params: Record<string, string>, headers: Record<string, string>) => paths.both(params, headers);

test('the ordinary exchange is issued by the fast route, answered, stored and introspected as the provider does it', async () => {
  for (const scope of ['reports:read', 'reports:write reports:read', undefined]) {
    const {
      fastToken,
      slowToken,
      rest: fastRest,
    } = assertIssuedAlike(await both(exchangeParams(key, scope ? { scope } : {}), auth()));
    assert.equal(fastRest.expires_in, 1234, "the app's own token lifetime");
    assert.equal(
      fastRest.scope,
      scope ?? 'reports:read reports:write',
      'the scope as requested, else all the key allows',
    );
    assert.equal(fastRest.issued_token_type, 'urn:ietf:params:oauth:token-type:access_token');

    const a = await assertStoredAlike(server, fastToken, slowToken);
    assert.equal(a.principal_id, svc.id, "the key's principal");
    assert.equal(a.user_agent, 'fast-credential-grants-test/1');

    const introspect = (value: string) =>
      form(
        `${server.issuer}/oauth/introspect`,
        { token: value },
        { authorization: basic(exchanger.clientId, exchanger.secret!) },
      );
    const [fi, si] = [(await introspect(fastToken)).json, (await introspect(slowToken)).json];
    for (const x of [fi, si]) {
      assert.equal(x.active, true);
      assert.equal(x.sub, svc.id);
      delete x.iat;
      delete x.exp;
    }
    assert.deepEqual(fi, si, 'introspected alike');
  }
  const used = await api(`/principals/${svc.id}/credentials`);
  assert.ok(
    used.body.items.every((c: { last_used_at: string | null }) => c.last_used_at !== null),
    "the key's use is noted",
  );
});

test('every exchange the fast route does not take gets the provider answer', async () => {
  const narrow = await server.registerApp({ name: 'Narrow', appType: 'machine', allowedScopes: ['reports:read'] });
  const web = await server.registerApp({
    name: 'No CC',
    appType: 'web',
    redirectUris: ['https://no-cc.example/cb'],
    allowedScopes: ['reports:read'],
  });
  const bound = await server.registerApp({
    name: 'DPoP only',
    appType: 'machine',
    allowedScopes: ['reports:read'],
    dpopBoundAccessTokens: true,
  });
  const readOnly = await newKey(svc.id, { scopes: ['reports:read'] });
  const revoked = await newKey(svc.id);
  assert.equal(
    (await api(`/principals/${svc.id}/credentials/${revoked.id}/revoke`, { method: 'POST', body: { reason: 'test' } }))
      .status,
    200,
  );
  const gone = await api('/principals', {
    method: 'POST',
    body: { type: 'service', name: 'retired-job', service_type: 'worker', allowed_scopes: ['reports:read'] },
  });
  const goneKey = await newKey(gone.body.id);
  assert.equal((await api(`/principals/${gone.body.id}/deactivate`, { method: 'POST', body: {} })).status, 200);
  const cases: [string, Record<string, string>, Record<string, string>, number, string][] = [
    [
      'a wrong secret',
      exchangeParams(key),
      { authorization: basic(exchanger.clientId, 'wrong') },
      401,
      'invalid_client',
    ],
    ['an unknown key', exchangeParams('pk_not_a_key'), auth(), 400, 'invalid_grant'],
    ['a revoked key', exchangeParams(revoked.key), auth(), 400, 'invalid_grant'],
    ["a deactivated principal's key", exchangeParams(goneKey.key), auth(), 400, 'invalid_grant'],
    [
      'a scope the key is not allowed',
      exchangeParams(readOnly.key, { scope: 'reports:write' }),
      auth(),
      400,
      'invalid_scope',
    ],
    [
      'a scope the app is not allowed',
      exchangeParams(key, { scope: 'reports:write' }),
      auth(narrow),
      400,
      'invalid_scope',
    ],
    ['an unknown scope', exchangeParams(key, { scope: 'made:up' }), auth(), 400, 'invalid_scope'],
    ['an app without client credentials', exchangeParams(key), auth(web), 400, 'unauthorized_client'],
    ['a DPoP-bound app', exchangeParams(key), auth(bound), 400, 'invalid_grant'],
    [
      'another subject token type',
      { ...exchangeParams(key), subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
      auth(),
      400,
      'invalid_request',
    ],
    ['no subject token', { grant_type: EXCHANGE, subject_token_type: API_KEY }, auth(), 400, 'invalid_request'],
    [
      'an organization it is not a member of',
      exchangeParams(key, { organization: 'no-such-org' }),
      auth(),
      400,
      'invalid_grant',
    ],
  ];
  for (const [what, params, headers, status, error] of cases) {
    assertHandedOver(what, await both(params, headers), status, error);
  }
});

test("an organization is the provider's to decide; a fast token is counted and revocable, and dies with its key", async () => {
  const org = await createOrganization(server.runtime.db, { name: 'Fast Key Org', slug: 'fast-key-org' });
  await addMember(server.runtime.db, org.id, svc.id, 'viewer', []);
  let before = paths.providerGrants();
  const scoped = await form(tokenUrl(), exchangeParams(key, { organization: 'fast-key-org' }), auth());
  assert.equal(scoped.status, 200, scoped.text);
  assert.equal(paths.providerGrants(), before + 1, 'issued by the provider');
  const introspect = (value: string) =>
    form(
      `${server.issuer}/oauth/introspect`,
      { token: value },
      { authorization: basic(exchanger.clientId, exchanger.secret!) },
    );
  assert.equal((await introspect(scoped.json.access_token)).json.org_id, org.id);

  const metric = async () => {
    const text = await (
      await fetch(`${server.issuer}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    return Number(/^identity_token_requests_total\{grant_type="other",outcome="success"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const counted = await metric();
  const own = await newKey(svc.id);
  before = paths.providerGrants();
  const fast = await form(tokenUrl(), exchangeParams(own.key), auth());
  assert.equal(fast.status, 200, fast.text);
  assert.equal(paths.providerGrants(), before, 'issued by the fast route');
  assert.equal(await metric(), counted + 1, 'counted as the provider counts a token exchange');
  assert.equal((await introspect(fast.json.access_token)).json.active, true);
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/revoke`,
        { token: fast.json.access_token },
        { authorization: basic(exchanger.clientId, exchanger.secret!) },
      )
    ).status,
    200,
  );
  assert.equal((await introspect(fast.json.access_token)).json.active, false, 'revoked');

  // Revoking the key refuses the next exchange at once (the provider answers it, as the fast route does not take it).
  assert.equal(
    (await api(`/principals/${svc.id}/credentials/${own.id}/revoke`, { method: 'POST', body: { reason: 'rotated' } }))
      .status,
    200,
  );
  const after = await form(tokenUrl(), exchangeParams(own.key), auth());
  assert.deepEqual([after.status, after.json.error], [400, 'invalid_grant']);
});

/** A key pair registered for the service, and assertions signed with it (fresh jti each). */
async function keyPair(kid: string): Promise<(claims?: { jti?: string }) => Promise<string>> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const r = await api(`/principals/${svc.id}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(pair.publicKey), key_id: kid, key_algorithm: 'ES256' },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return (claims = {}) => sign(pair.privateKey, kid, claims.jti ?? randomUUID());
}

function sign(key: CryptoKey, kid: string, jti: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(svc.id)
    .setSubject(svc.id)
    .setAudience(server.issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(jti)
    .sign(key);
}

test("a key pair's assertion is issued by the fast route as the provider issues it, and spent: a replay is refused by the provider", async () => {
  const assertion = await keyPair('fast-es256');
  for (const scope of ['reports:read', undefined]) {
    const extra: Record<string, string> = scope ? { scope } : {};
    // Each path its own assertion (single use); the provider's is sent with a parameter it drops, so it reaches the provider.
    const before = paths.providerGrants();
    const fast = await form(tokenUrl(), { grant_type: JWT_BEARER, assertion: await assertion(), ...extra }, auth());
    const fastWentToProvider = paths.providerGrants() > before;
    const slow = await form(
      tokenUrl(),
      { grant_type: JWT_BEARER, assertion: await assertion(), ...extra, via: 'provider' },
      auth(),
    );
    const { fastToken, slowToken, rest } = assertIssuedAlike({ fast, slow, fastWentToProvider });
    assert.equal(rest.expires_in, 1234);
    assert.equal(rest.scope, scope ?? 'reports:read reports:write');
    assert.equal(rest.issued_token_type, undefined, 'not an exchange');
    const a = await assertStoredAlike(server, fastToken, slowToken);
    assert.equal(a.principal_id, svc.id);
  }
  const once = await assertion();
  assert.equal((await form(tokenUrl(), { grant_type: JWT_BEARER, assertion: once }, auth())).status, 200);
  assertHandedOver(
    'the same assertion again',
    await paths.both({ grant_type: JWT_BEARER, assertion: once }, auth()),
    400,
    'invalid_grant',
  );
});

test('an assertion the fast route does not take gets the provider answer, and is not spent by the fast route', async () => {
  const assertion = await keyPair('refused-es256');
  const narrow = await server.registerApp({
    name: 'Narrow signer',
    appType: 'machine',
    allowedScopes: ['reports:read'],
  });
  const cases: [string, () => Promise<Record<string, string>>, Record<string, string>, number, string][] = [
    [
      'an unknown kid',
      async () => ({
        grant_type: JWT_BEARER,
        assertion: await sign((await generateKeyPair('ES256')).privateKey, 'no-such-kid', randomUUID()),
      }),
      auth(),
      400,
      'invalid_grant',
    ],
    ['not a JWT', async () => ({ grant_type: JWT_BEARER, assertion: 'not.a.jwt' }), auth(), 400, 'invalid_grant'],
    [
      'a scope the app is not allowed',
      async () => ({ grant_type: JWT_BEARER, assertion: await assertion(), scope: 'reports:write' }),
      auth(narrow),
      400,
      'invalid_scope',
    ],
    [
      'a wrong secret',
      async () => ({ grant_type: JWT_BEARER, assertion: await assertion() }),
      { authorization: basic(exchanger.clientId, 'wrong') },
      401,
      'invalid_client',
    ],
  ];
  for (const [what, params, headers, status, error] of cases) {
    // Fresh assertions for each path: the provider spends the jti of a refused scope, as it always has.
    const before = paths.providerGrants();
    const fast = await form(tokenUrl(), await params(), headers);
    const fastWentToProvider = paths.providerGrants() > before;
    const slow = await form(tokenUrl(), { ...(await params()), via: 'provider' }, headers);
    assert.equal(fast.status, status, `${what}: ${fast.text}`);
    assert.equal(fast.json.error, error, what);
    assert.deepEqual([slow.status, slow.json.error], [status, error], `${what}: the provider's answer`);
    assert.equal(fastWentToProvider, true, `${what}: answered by the provider`);
  }
});
