import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, form, basic, type Server } from '../../identity/support.ts';
import { startIngest, ADMIN_TOKEN, type IngestHarness } from '../../ingest/helpers.ts';
import {
  assertBoundTokenRules,
  assertUnboundTokenRules,
  athOf,
  dpopProof,
  newKey,
  type KeyPair,
  type Resource,
} from '../../support/dpop.ts';

// The kit's admin guard as a resource server of DPoP-bound tokens (RFC 9449 §7), checked through introspection
// (`cnf.jkt`): ingest's admin API behind a proxy that strips a path prefix (INGEST_PUBLIC_URL), and without one.
const PUBLIC_URL = 'https://ingest.example.test/edge';
let identity: Server;
let ingest: IngestHarness;
let introspection: Record<string, string>;
let machine: { clientId: string; secret: string | undefined };

before(async () => {
  identity = await startServer('dpopguard_identity', { IDENTITY_EXTRA_SCOPES: 'ingest:admin' });
  const rs = await identity.registerApp({
    name: 'ingest service',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  introspection = {
    INGEST_IDENTITY_URL: identity.issuer,
    INGEST_IDENTITY_CLIENT_ID: rs.clientId,
    INGEST_IDENTITY_CLIENT_SECRET: rs.secret!,
  };
  ingest = await startIngest({ ...introspection, INGEST_PUBLIC_URL: PUBLIC_URL }, 'dpopguard_ingest');
  machine = await identity.registerApp({ name: 'ops robot', appType: 'machine', allowedScopes: ['ingest:admin'] });
});

after(async () => {
  await ingest?.close();
  await identity?.close();
});

/** A client-credentials token of scope ingest:admin: bound to `keys` when given (a proof at the token endpoint). */
async function accessToken(keys?: KeyPair): Promise<string> {
  const dpop: Record<string, string> = keys
    ? { dpop: await dpopProof(keys, { htm: 'POST', htu: `${identity.issuer}/oauth/token` }) }
    : {};
  const res = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'ingest:admin' },
    { authorization: basic(machine.clientId, machine.secret!), ...dpop },
  );
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.token_type, keys ? 'DPoP' : 'Bearer');
  return res.json.access_token;
}

function resource(
  method: 'GET' | 'POST',
  path: string,
  options: { h?: IngestHarness; htu?: string; ok?: number; payload?: () => object } = {},
): Resource {
  const h = options.h ?? ingest;
  return {
    method,
    htu: options.htu ?? `${PUBLIC_URL}${path}`,
    ok: options.ok ?? 200,
    async call(headers) {
      const res = await h.app.inject({
        method,
        url: path,
        headers,
        ...(options.payload ? { payload: options.payload() } : {}),
      });
      const www = res.headers['www-authenticate'];
      return {
        status: res.statusCode,
        code: res.statusCode >= 400 ? res.json().error?.code : undefined,
        wwwAuthenticate: typeof www === 'string' ? www : undefined,
      };
    },
  };
}

test('a bound token reads the admin API only with a proof by its key naming the public URL; every wrong proof is 401', async () => {
  const keys = await newKey();
  await assertBoundTokenRules(resource('GET', '/api/v1/projects'), await accessToken(keys), keys);
});

test('a bound token writes with a POST proof; the proof of a GET does not do for a POST', async () => {
  const keys = await newKey();
  const token = await accessToken(keys);
  let n = 0;
  const create = resource('POST', '/api/v1/projects', { ok: 201, payload: () => ({ name: `by bound token ${++n}` }) });
  await assertBoundTokenRules(create, token, keys);
  const listed = await resource('GET', '/api/v1/projects').call({
    authorization: `DPoP ${token}`,
    dpop: await dpopProof(keys, { htm: 'GET', htu: `${PUBLIC_URL}/api/v1/projects`, ath: athOf(token) }),
  });
  assert.equal(listed.status, 200);
});

test("behind the proxy, a proof naming the service's own address instead of INGEST_PUBLIC_URL is refused", async () => {
  const keys = await newKey();
  const token = await accessToken(keys);
  const own = await resource('GET', '/api/v1/projects').call({
    authorization: `DPoP ${token}`,
    dpop: await dpopProof(keys, { htm: 'GET', htu: 'http://localhost/api/v1/projects', ath: athOf(token) }),
  });
  assert.equal(own.status, 401);
  assert.match(own.wwwAuthenticate ?? '', /error="invalid_dpop_proof"/);
});

test('unbound tokens and INGEST_ADMIN_TOKEN work as Bearer exactly as before, and are refused with the DPoP scheme', async () => {
  await assertUnboundTokenRules(resource('GET', '/api/v1/projects'), await accessToken());
  await assertUnboundTokenRules(resource('GET', '/api/v1/projects'), ADMIN_TOKEN);
  // The challenges of requests without DPoP are unchanged.
  const none = await ingest.app.inject({ method: 'GET', url: '/api/v1/projects' });
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="ingest"');
});

test('without INGEST_PUBLIC_URL, htu is the scheme and Host the request arrived with (default port or not)', async () => {
  const direct = await startIngest(introspection, 'dpopguard_direct');
  try {
    const keys = await newKey();
    const token = await accessToken(keys);
    // app.inject sends Host: localhost:80; the URL parser drops the default port on both sides.
    await assertBoundTokenRules(
      resource('GET', '/api/v1/projects', { h: direct, htu: 'http://localhost/api/v1/projects' }),
      token,
      keys,
    );
    const proxied = await resource('GET', '/api/v1/projects', { h: direct }).call({
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(keys, { htm: 'GET', htu: `${PUBLIC_URL}/api/v1/projects`, ath: athOf(token) }),
    });
    assert.equal(proxied.status, 401, 'this instance was not told about the proxy');
  } finally {
    await direct.close();
  }
});

test('with REDIS_URL, a proof used at one instance is a replay at another; without it, each instance remembers only its own', async () => {
  const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const shared = { ...introspection, INGEST_PUBLIC_URL: PUBLIC_URL, REDIS_URL };
  const a = await startIngest(shared, 'dpopguard_redis_a');
  const b = await startIngest(shared, 'dpopguard_redis_b');
  try {
    const keys = await newKey();
    const token = await accessToken(keys);
    const proof = await dpopProof(keys, { htm: 'GET', htu: `${PUBLIC_URL}/api/v1/projects`, ath: athOf(token) });
    const headers = { authorization: `DPoP ${token}`, dpop: proof };
    assert.equal(
      (await resource('GET', '/api/v1/projects', { h: a }).call(headers)).status,
      200,
      'first use, at instance a',
    );
    const replayed = await resource('GET', '/api/v1/projects', { h: b }).call(headers);
    assert.equal(replayed.status, 401, 'the same proof at instance b');
    assert.match(replayed.wwwAuthenticate ?? '', /error="invalid_dpop_proof"/);
    // The documented limit of memory only: `ingest` (no REDIS_URL) has not seen this proof.
    assert.equal((await resource('GET', '/api/v1/projects').call(headers)).status, 200, 'an instance without Redis');
  } finally {
    await b.close();
    await a.close();
  }
});
