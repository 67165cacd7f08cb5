import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { App } from '../../src/kit/app.ts';
import { buildIdentityApp } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import {
  assertBoundTokenRules,
  assertUnboundTokenRules,
  athOf,
  dpopProof,
  type Answer,
  type KeyPair,
  type Resource,
} from '../support/dpop.ts';

// Identity as a resource server of its own DPoP-bound tokens (RFC 9449 §7): the management API behind the kit's admin
// guard, and the person's own routes under /api/v1/me. Tokens come from the real authorization code flow.
const IDENTITY_ADMIN_TOKEN = 'identity-admin-token-for-machines-dpop';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let server: Server;
let as: oauth.AuthorizationServer;
let bound: { token: string; keys: KeyPair };
let unbound: string;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

async function codeFlow(
  app: { clientId: string; secret: string | undefined },
  who: { email: string; password: string },
  DPoP?: oauth.DPoPHandle,
) {
  const client: oauth.Client = { client_id: app.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid admin',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  const params = oauth.validateAuthResponse(as, client, new URL(callback), oauth.expectNoState);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(app.secret!),
    params,
    CALLBACK,
    verifier,
    { ...(DPoP ? { DPoP } : {}), ...insecure },
  );
  return oauth.processAuthorizationCodeResponse(as, client, res, { expectedNonce: oauth.expectNoNonce });
}

/**
 * A request to `path` (a GET unless `options.method`, with a JSON `body`), answered `ok` once past authentication; sent to
 * `origin` (the issuer unless a test calls the server by another address).
 */
function resource(
  path: string,
  options: { origin?: string; method?: string; body?: unknown; ok?: number } = {},
): Resource {
  return {
    method: options.method ?? 'GET',
    htu: `${server.issuer}${path}`,
    ok: options.ok ?? 200,
    async call(headers): Promise<Answer> {
      const h = new Headers();
      for (const [name, value] of Object.entries(headers)) for (const v of [value].flat()) h.append(name, v);
      if (options.body !== undefined) h.set('content-type', 'application/json');
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      const res = await fetch(`${options.origin ?? server.issuer}${path}`, {
        method: options.method ?? 'GET',
        headers: h,
        body: payload,
      });
      const body = (await res.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
      return {
        status: res.status,
        code: body?.error?.code,
        wwwAuthenticate: res.headers.get('www-authenticate') ?? undefined,
      };
    },
  };
}

before(async () => {
  server = await startServer('iddpopres', { IDENTITY_ADMIN_TOKEN });
  const root = { email: 'root@example.com', password: 'a long admin passphrase' };
  await server.createHuman(root.email, root.password, true);
  const consoleApp = await server.registerApp({
    name: 'Admin Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    allowedScopes: ['openid', 'admin'],
    firstParty: true,
  });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const keys = await oauth.generateKeyPair('ES256');
  const client: oauth.Client = { client_id: consoleApp.clientId };
  const withProof = await codeFlow(consoleApp, root, oauth.DPoP(client, keys));
  assert.equal(withProof.token_type, 'dpop');
  bound = { token: withProof.access_token, keys };
  const plain = await codeFlow(consoleApp, root);
  assert.equal(plain.token_type, 'bearer');
  unbound = plain.access_token;
});
after(async () => server?.close());

test('the management API: a bound token needs a proof by its key for this request; every wrong proof is 401', async () => {
  await assertBoundTokenRules(resource('/api/v1/principals'), bound.token, bound.keys);
});

test('the management API: an unbound token works as Bearer as before, and is refused with the DPoP scheme', async () => {
  await assertUnboundTokenRules(resource('/api/v1/principals'), unbound);
});

test('the management API: IDENTITY_ADMIN_TOKEN works as Bearer, and is refused with the DPoP scheme', async () => {
  await assertUnboundTokenRules(resource('/api/v1/principals'), IDENTITY_ADMIN_TOKEN);
});

test("the person's own routes (/api/v1/me/...): the same rules for bound and unbound tokens", async () => {
  await assertBoundTokenRules(resource('/api/v1/me/agents'), bound.token, bound.keys);
  await assertUnboundTokenRules(resource('/api/v1/me/exchanges'), unbound);
});

test('htu is checked against the issuer (the public URL), whatever address the request reached the server by', async () => {
  const internal = server.issuer.replace('localhost', '127.0.0.1');
  assert.notEqual(internal, server.issuer);
  const path = '/api/v1/principals';
  const byInternal = resource(path, { origin: internal });
  const ath = athOf(bound.token);
  const wrong = await byInternal.call({
    authorization: `DPoP ${bound.token}`,
    dpop: await dpopProof(bound.keys, { htm: 'GET', htu: `${internal}${path}`, ath }),
  });
  assert.equal(wrong.status, 401, 'a proof naming the address the server was reached by, not its public URL');
  assert.equal(wrong.code, 'UNAUTHORIZED');
  const right = await byInternal.call({
    authorization: `DPoP ${bound.token}`,
    dpop: await dpopProof(bound.keys, { htm: 'GET', htu: `${server.issuer}${path}`, ath }),
  });
  assert.equal(right.status, 200, 'a proof naming the public URL');
});

test("identity's other routes that take a person's token: the marketplace, accepting an invitation, changing one's password", async () => {
  const routes: [string, Resource][] = [
    ['marketplace', resource('/api/v1/listings')],
    // Past authentication, an invitation token nobody issued is not found.
    [
      'invitations',
      resource('/api/v1/invitations/accept', { method: 'POST', body: { token: 'no-such-invitation' }, ok: 404 }),
    ],
    // Past authentication, a wrong current password is 403 (a few stay under the sign-in slow-down).
    [
      'password',
      resource('/api/v1/account/password', {
        method: 'PUT',
        body: { current_password: 'not the password', new_password: 'another long passphrase' },
        ok: 403,
      }),
    ],
  ];
  for (const [label, route] of routes) {
    await assertBoundTokenRules(route, bound.token, bound.keys).catch((err: Error) =>
      assert.fail(`${label}: ${err.message}`),
    );
    await assertUnboundTokenRules(route, unbound).catch((err: Error) => assert.fail(`${label}: ${err.message}`));
  }
  await assertUnboundTokenRules(resource('/api/v1/listings'), IDENTITY_ADMIN_TOKEN);
});

test('two instances on one database and Redis: a proof used at one is a replay at the other', async () => {
  // Two more instances on this test's database, with Redis, as a deployment of several runs.
  const instances: App[] = [];
  try {
    const origins: string[] = [];
    for (let i = 0; i < 2; i++) {
      const instance = await buildIdentityApp(loadIdentityConfig({ ...server.env, REDIS_URL, IDENTITY_PORT: '0' }));
      instances.push(instance);
      await instance.listen({ host: '127.0.0.1', port: 0 });
      origins.push(`http://127.0.0.1:${(instance.server.address() as { port: number }).port}`);
    }
    const path = '/api/v1/principals';
    const proof = () => dpopProof(bound.keys, { htm: 'GET', htu: `${server.issuer}${path}`, ath: athOf(bound.token) });
    const headers = { authorization: `DPoP ${bound.token}`, dpop: await proof() };
    assert.equal(
      (await resource(path, { origin: origins[0] }).call(headers)).status,
      200,
      'first use, at one instance',
    );
    const replayed = await resource(path, { origin: origins[1] }).call(headers);
    assert.equal(replayed.status, 401, 'the same proof at the other instance');
    assert.match(replayed.wwwAuthenticate ?? '', /error="invalid_dpop_proof"/);
    assert.equal(
      (await resource(path, { origin: origins[1] }).call({ ...headers, dpop: await proof() })).status,
      200,
      'a new proof at the other instance',
    );
  } finally {
    for (const instance of instances) await instance.close();
  }
});
