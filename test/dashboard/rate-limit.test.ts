import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildDashboardApp } from '../../src/dashboard/app.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function burn(s: DashboardServer, who: SignedIn, n: number) {
  const answers = [];
  for (let i = 0; i < n; i++) answers.push(await s.request('GET', '/api/v1/dashboards', { as: who }));
  return answers;
}

describe('rate limits per tenant by plan', () => {
  let s: DashboardServer;
  before(async () => {
    s = await startDashboard('dashrate');
    await s.createTenant('small', 'free');
    await s.createTenant('medium', 'pro');
  });
  after(async () => s?.close());

  test("a free tenant's 61st request in a minute is 429 RATE_LIMITED with Retry-After; headers on every answer", async () => {
    const a = await s.signIn({ tenant: 'small', role: 'viewer' });
    const b = await s.signIn({ tenant: 'small', role: 'editor' });
    // The window starts at the tenant's first request: its reset is a Unix time about a minute after it.
    const t0 = Date.now() / 1000;
    const first = await s.request('GET', '/api/v1/dashboards', { as: a });
    const t1 = Date.now() / 1000;
    const reset = Number(first.headers['x-ratelimit-reset']);
    assert.ok(
      reset >= Math.floor(t0 + 60) && reset <= Math.ceil(t1 + 60) + 1,
      `reset ${reset} is a Unix time a minute after the first request (${t0})`,
    );
    // Two users of one tenant share its budget.
    const answers = [first, ...(await burn(s, a, 29)), ...(await burn(s, b, 30))];
    answers.forEach((r, i) => {
      assert.equal(r.status, 200, `request ${i + 1}`);
      assert.equal(r.headers['x-ratelimit-limit'], '60');
      assert.equal(r.headers['x-ratelimit-remaining'], String(59 - i));
      // The same window: its end, give or take the second the milliseconds round to.
      assert.ok(Math.abs(Number(r.headers['x-ratelimit-reset']) - reset) <= 1);
    });
    const over = await s.request('GET', '/api/v1/dashboards', { as: a });
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, 'RATE_LIMITED');
    const retry = Number(over.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60);
    assert.equal(over.headers['x-ratelimit-remaining'], '0');
    // Other routes of the same tenant are limited too; another tenant is not.
    assert.equal((await s.request('GET', '/api/v1/auth/me', { as: b })).status, 429);
    const other = await s.signIn({ tenant: 'medium', role: 'viewer' });
    const fine = await s.request('GET', '/api/v1/dashboards', { as: other });
    assert.equal(fine.status, 200);
    assert.equal(fine.headers['x-ratelimit-limit'], '300');
    // Health is never limited.
    assert.equal((await s.request('GET', '/health')).status, 200);
  });

  test('with REDIS_URL two instances share one count', async () => {
    const prefix = `test:dash:${randomBytes(4).toString('hex')}:`;
    const shared = await startDashboard('dashrateredis', { REDIS_URL: REDIS, DASHBOARD_REDIS_PREFIX: prefix });
    const second = await buildDashboardApp(shared.config);
    try {
      await shared.createTenant('tiny', 'free');
      const u = await shared.signIn({ tenant: 'tiny', role: 'viewer' });
      await burn(shared, u, 40);
      let status = 0;
      let remaining = '';
      for (let i = 0; i < 20; i++) {
        const r = await second.inject({ method: 'GET', url: '/api/v1/dashboards', headers: u.headers });
        status = r.statusCode;
        remaining = String(r.headers['x-ratelimit-remaining']);
      }
      assert.equal(status, 200);
      assert.equal(remaining, '0');
      const r = await second.inject({ method: 'GET', url: '/api/v1/dashboards', headers: u.headers });
      assert.equal(r.statusCode, 429);
    } finally {
      await second.close();
      await shared.close();
    }
  });
});
