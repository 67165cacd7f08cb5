import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { App } from '../../src/kit/app.ts';
import { buildIdentityApp } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import { createSecret, revokeSecret } from '../../src/identity/apps/store.ts';
import { connectRedis } from '../../src/kit/redis.ts';
import { basic, form, startServer, type Server } from './support.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let a: Server;
let b: App;
let bUrl: string;
let listener: Redis;

before(async () => {
  a = await startServer('cacheinval', { REDIS_URL, IDENTITY_EXTRA_SCOPES: 'reports:read' });
  b = await buildIdentityApp(loadIdentityConfig({ ...a.env, IDENTITY_PORT: '0' }));
  await b.listen({ host: '127.0.0.1', port: 0 });
  bUrl = `http://127.0.0.1:${(b.server.address() as { port: number }).port}`;
  listener = await connectRedis(REDIS_URL);
  await listener.subscribe('platform:invalidate:identity');
});
after(async () => {
  listener?.disconnect();
  await b?.close();
  await a?.close();
});

test('two instances on one database and Redis: a secret revoked through one stops working on the other at once', async () => {
  const app = await a.registerApp({ name: 'two instances', appType: 'machine', allowedScopes: ['reports:read'] });
  const second = await createSecret(a.runtime.db, app.id);
  const token = (base: string, secret: string) =>
    form(
      `${base}/oauth/token`,
      { grant_type: 'client_credentials', scope: 'reports:read' },
      { authorization: basic(app.clientId, secret) },
    );
  const cachedBefore = Date.now();
  assert.equal(
    (await token(bUrl, second.secret)).status,
    200,
    'instance b has read the app and its secrets into its cache',
  );

  const published = once(listener, 'message');
  // What the management API's DELETE /applications/:id/secrets/:secretId does on instance a.
  assert.ok(await revokeSecret(a.runtime.db, app.id, second.id));
  a.runtime.clients.invalidate(app.clientId);
  assert.equal((await token(a.issuer, second.secret)).status, 401);

  // Other test files may share this Redis and channel: wait for invalidation messages, not for time.
  // The cache keeps an app 5 s: a refusal later than that could be its expiry, not the invalidation.
  const deadline = cachedBefore + 5_000;
  await published;
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    const res = await token(bUrl, second.secret);
    if (res.status === 401) {
      assert.equal(res.json.error, 'invalid_client');
      assert.ok(Date.now() < deadline, 'refused before the cached copy expired');
      break;
    }
    assert.equal(res.status, 200);
    assert.ok(Date.now() < deadline, 'instance b still takes the revoked secret until its copy expires');
    // The next invalidation message, or the deadline: whichever comes first.
    await once(listener, 'message', { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) }).catch(
      () => {},
    );
  }
  assert.equal((await token(bUrl, app.secret!)).status, 200, "the app's other secret keeps working");
});
