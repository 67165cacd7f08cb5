import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { App } from '../../src/kit/app.ts';
import { buildIdentityApp, identityRuntime } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';

/**
 * Signing keys through the management API (src/identity/signing-keys): which key signs and which are published, and a
 * staged rotation — the new key is published at once on every instance (the second one hears it through Redis) and
 * signs only once IDENTITY_KEY_REFRESH_SECONDS have passed, so no instance signs with a key another does not publish.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const REFRESH = 600;
const CALLBACK = 'http://localhost:8765/callback';
const PASSWORD = 'a long enough passphrase';
let a: Server;
let b: App;
let bUrl: string;
let clientId: string;
const api = managementApi(
  () => a.issuer,
  () => ADMIN_TOKEN,
);

const jwksKids = async (base: string) =>
  ((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

/** The kid in the header of an ID token instance a issues now. */
const signingKid = async () => {
  const got = await codeFlow(new TestBrowser(), {
    issuer: a.issuer,
    clientId,
    redirectUri: CALLBACK,
    scope: 'openid',
    credentials: { email: 'kim@example.com', password: PASSWORD },
  });
  assert.equal(got.status, 200);
  return JSON.parse(Buffer.from(got.tokens.id_token.split('.')[0], 'base64url').toString()).kid as string;
};

before(async () => {
  a = await startServer('idkeysadmin', {
    REDIS_URL,
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_KEY_REFRESH_SECONDS: String(REFRESH),
  });
  b = await buildIdentityApp(loadIdentityConfig({ ...a.env, IDENTITY_PORT: '0' }));
  await b.listen({ host: '127.0.0.1', port: 0 });
  bUrl = `http://127.0.0.1:${(b.server.address() as { port: number }).port}`;
  await a.createHuman('kim@example.com', PASSWORD);
  clientId = (
    await a.registerApp({
      name: 'Reader',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid'],
      firstParty: true,
    })
  ).clientId;
});
after(async () => {
  await b?.close();
  await a?.close();
});

test('the first key signs and is published; the list says so, with the JWKS address and the wait', async () => {
  const r = await api('/signing-keys');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.items.length, 1);
  const [key] = r.body.items;
  assert.deepEqual(
    [key.state, key.published, key.served, key.alg, key.retired_at, key.publish_until, key.signs_from],
    ['signing', true, true, 'RS256', null, null, null],
  );
  assert.equal(r.body.jwks_uri, `${a.issuer}/.well-known/jwks.json`);
  assert.equal(r.body.propagation_seconds, REFRESH);
  assert.deepEqual(await jwksKids(a.issuer), [key.kid]);
  assert.equal(await signingKid(), key.kid);
});

test('a rotation publishes the new key on both instances at once; the old one signs until its retirement comes due', async () => {
  const old = (await api('/signing-keys')).body.items[0].kid;
  const before = Date.now();
  const rotated = await api('/signing-keys/rotate', { method: 'POST' });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  const next = rotated.body.kid;
  assert.notEqual(next, old);
  assert.deepEqual(rotated.body.retired, [old]);
  const signsFrom = Date.parse(rotated.body.signs_from);
  assert.ok(signsFrom >= before + REFRESH * 1000 - 1000 && signsFrom <= Date.now() + REFRESH * 1000 + 1000);

  // Published here at once, and on the other instance as soon as Redis carries the word (its own check is 10 min away).
  assert.deepEqual((await jwksKids(a.issuer)).sort(), [next, old].sort());
  for (let i = 0; !(await jwksKids(bUrl)).includes(next); i++) {
    assert.ok(i < 100, 'instance b serves the new key within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await signingKid(), old, 'the old key still signs while the new one propagates');

  const listed = (await api('/signing-keys')).body.items;
  assert.deepEqual(
    listed.map((k: any) => [k.kid, k.state, k.published, k.served]),
    [
      [next, 'next', true, true],
      [old, 'signing', true, true],
    ],
  );
  assert.equal(listed[0].signs_from, rotated.body.signs_from);
  assert.equal(listed[1].retired_at, rotated.body.signs_from);
  // Published until an ID token signed at the last reload before its retirement has expired.
  const until = Date.parse(listed[1].publish_until);
  assert.ok(Math.abs(until - (signsFrom + REFRESH * 1000 + 3900 * 1000)) < 2000, listed[1].publish_until);

  // The retirement comes due (as REFRESH seconds later): the next check on each instance makes the new key sign.
  await a.runtime.db.query("UPDATE signing_keys SET retired_at = now() - interval '1 second' WHERE kid = $1", [old]);
  assert.equal(await a.runtime.reloadKeys(), true);
  assert.equal(await identityRuntime(b).reloadKeys(), true);
  assert.equal(await signingKid(), next);
  const after = (await api('/signing-keys')).body.items;
  assert.deepEqual(
    after.map((k: any) => [k.kid, k.state, k.published]),
    [
      [next, 'signing', true],
      [old, 'retired', true],
    ],
  );
  assert.deepEqual(
    (await jwksKids(bUrl)).sort(),
    [next, old].sort(),
    'the retired key stays published for verification',
  );

  const logged = (await api('/admin-log?action=signing-key')).body.items;
  assert.deepEqual(
    logged.map((e: any) => [e.action, e.target.type, e.target.id, e.actor.kind]),
    [['signing-key.rotate', 'signing-key', next, 'admin-token']],
  );

  await a.runtime.db.query("UPDATE signing_keys SET publish_until = now() - interval '1 second' WHERE kid = $1", [old]);
  await a.runtime.reloadKeys();
  const expired = (await api('/signing-keys')).body.items;
  assert.deepEqual(
    expired.map((k: any) => [k.kid, k.state, k.published, k.served]),
    [
      [next, 'signing', true, true],
      [old, 'expired', false, false],
    ],
  );
});

test('pages, bad inputs and nobody', async () => {
  const first = await api('/signing-keys?limit=1');
  assert.equal(first.body.items.length, 1);
  const second = await api(`/signing-keys?limit=1&cursor=${first.body.next}`);
  assert.equal(second.body.items.length, 1);
  assert.equal(second.body.next, null);
  for (const bad of ['?cursor=bm9wZQ', '?limit=0', '?x=1']) {
    const r = await api(`/signing-keys${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  assert.equal((await fetch(`${a.issuer}/api/v1/signing-keys`)).status, 401);
  const nobody = await fetch(`${a.issuer}/api/v1/signing-keys/rotate`, { method: 'POST', body: 'not json' });
  assert.equal(nobody.status, 401);
});
