import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { buildIdentityApp } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import { connectRedis } from '../../src/kit/redis.ts';
import type { App } from '../../src/kit/app.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { CALLBACK } from './dance.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let server: Server;
let second: App;
let secondOrigin: string;
let web: { clientId: string };
const frank = { email: 'frank@example.com', password: 'frank has a long password' };

before(async () => {
  // Counts from earlier runs of this file must not carry over.
  const redis = await connectRedis(REDIS_URL);
  const stale = await redis.keys('identity:signin:*');
  if (stale.length) await redis.del(...stale);
  redis.disconnect();
  server = await startServer('idthrottle', { REDIS_URL, IDENTITY_SIGNIN_FREE_FAILURES: '3' });
  await server.createHuman(frank.email, frank.password);
  web = await server.registerApp({ name: 'Web', appType: 'web', redirectUris: [CALLBACK], firstParty: true });
  // A second instance of the service on the same database and Redis.
  second = await buildIdentityApp(loadIdentityConfig({ ...server.env, IDENTITY_PORT: '0' }));
  await second.listen({ host: '127.0.0.1', port: 0 });
  secondOrigin = `http://localhost:${(second.server.address() as { port: number }).port}`;
});
after(async () => {
  await second?.close();
  await server?.close();
});

test('failed sign-ins on one instance slow down the account on another (REDIS_URL)', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const browser = new TestBrowser();
  const authorize = `${server.issuer}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: web.clientId,
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })}`;
  const page = await browser.follow(authorize, CALLBACK);
  const action = new URL(formAction(page.html)!, server.issuer);
  const csrf = field(page.html, 'csrf')!;
  for (let i = 0; i < 3; i++) {
    const bad = await browser.request(action.href, { form: { csrf, email: frank.email, password: `wrong ${i}` } });
    assert.equal(bad.status, 401);
  }
  // Behind one public origin (a load balancer), the browser's next post lands on the other instance.
  const onSecond = new URL(action.pathname, secondOrigin).href;
  const blocked = await browser.request(onSecond, {
    form: { csrf, email: frank.email, password: frank.password },
    headers: { origin: new URL(server.issuer).origin },
  });
  assert.equal(blocked.status, 429, 'the other instance saw the failures');
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
});
