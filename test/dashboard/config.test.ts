import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/kit/config.ts';
import { loadDashboardConfig } from '../../src/dashboard/config.ts';
import { startDashboard } from './harness.ts';

// A key given, so reading the configuration never writes a development key into the working directory.
const KEY = { PLATFORM_SECRET_KEY: 'ab'.repeat(32) };
const load = (env: NodeJS.ProcessEnv) => loadDashboardConfig({ ...KEY, ...env });
const refused = (env: NodeJS.ProcessEnv, variable: string, message: RegExp) => {
  assert.throws(
    () => load(env),
    (err: unknown) => err instanceof ConfigError && err.variable === variable && message.test(err.message),
  );
};

test('a JWT secret under 32 bytes, or none in production, refuses to start without echoing it', () => {
  refused({ DASHBOARD_JWT_SECRET: 'short-secret-31-bytes-long-xxxx' }, 'DASHBOARD_JWT_SECRET', /at least 32 bytes/);
  assert.throws(
    () => load({ DASHBOARD_JWT_SECRET: 'short-secret-31-bytes-long-xxxx' }),
    (e: Error) => !e.message.includes('short-secret'),
  );
  refused({ NODE_ENV: 'production' }, 'DASHBOARD_JWT_SECRET', /required when NODE_ENV=production/);
  assert.equal(load({ DASHBOARD_JWT_SECRET: 'x'.repeat(32) }).jwtSecret, 'x'.repeat(32));
});

test('authentication can be disabled only on a loopback address outside production', () => {
  refused(
    { DASHBOARD_AUTH_DISABLED: 'true', NODE_ENV: 'production', DASHBOARD_JWT_SECRET: 'x'.repeat(32) },
    'DASHBOARD_AUTH_DISABLED',
    /NODE_ENV=production/,
  );
  refused({ DASHBOARD_AUTH_DISABLED: 'true', HOST: '0.0.0.0' }, 'DASHBOARD_AUTH_DISABLED', /HOST=0\.0\.0\.0/);
  refused({ DASHBOARD_AUTH_DISABLED: 'true', HOST: '192.168.1.5' }, 'DASHBOARD_AUTH_DISABLED', /loopback/);
  for (const host of ['127.0.0.1', '::1', 'localhost'])
    assert.equal(load({ DASHBOARD_AUTH_DISABLED: 'true', HOST: host }).authDisabled, true);
});

test('OpenID providers are a JSON array with unique ids that do not shadow the built-in routes', () => {
  for (const bad of [
    'nope',
    '{}',
    '[{"id":"github","issuer":"https://x","clientId":"c"}]',
    '[{"id":"me","issuer":"https://x","clientId":"c"}]',
    '[{"id":"a","issuer":"ftp://x","clientId":"c"}]',
    '[{"id":"a","issuer":"https://x"}]',
    '[{"id":"a","issuer":"https://x","clientId":"c"},{"id":"a","issuer":"https://y","clientId":"d"}]',
  ]) {
    refused({ DASHBOARD_OIDC_PROVIDERS: bad }, 'DASHBOARD_OIDC_PROVIDERS', /JSON array/);
  }
  assert.throws(
    () =>
      load({
        DASHBOARD_OIDC_PROVIDERS: '[{"id":"a","issuer":"https://x","clientId":"c","clientSecret":"TOPSECRET"},{}]',
      }),
    (e: Error) => !e.message.includes('TOPSECRET'),
  );
  refused({ DASHBOARD_GITHUB_CLIENT_ID: 'abc' }, 'DASHBOARD_GITHUB_CLIENT_SECRET', /go together/);
});

test('with authentication disabled every request acts as the dev owner, and the start says so', async () => {
  const writes: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let s: Awaited<ReturnType<typeof startDashboard>>;
  try {
    s = await startDashboard('dashnoauth', { DASHBOARD_AUTH_DISABLED: 'true' });
  } finally {
    process.stderr.write = original;
  }
  try {
    assert.ok(writes.some((w) => /AUTHENTICATION IS DISABLED/.test(w)));
    const me = await s.request('GET', '/api/v1/auth/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 'owner');
    assert.equal(me.body.email, 'dev@localhost');
    const created = await s.request('POST', '/api/v1/dashboards', {
      body: {
        slug: 'dev',
        title: 'Dev',
        definition: { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] },
      },
    });
    assert.equal(created.status, 201);
  } finally {
    await s.close();
  }
});

test('CORS answers configured origins only, with the configured methods and headers', async () => {
  const s = await startDashboard('dashcors', {
    DASHBOARD_CORS_ORIGINS: 'https://dash.example.com',
    DASHBOARD_CORS_METHODS: 'GET,POST,PUT,DELETE',
    DASHBOARD_CORS_HEADERS: 'Authorization,Content-Type',
  });
  try {
    const pre = await s.request('OPTIONS', '/api/v1/dashboards', {
      headers: {
        origin: 'https://dash.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], 'https://dash.example.com');
    assert.equal(String(pre.headers['access-control-allow-methods']).replace(/ /g, ''), 'GET,POST,PUT,DELETE');
    assert.equal(String(pre.headers['access-control-allow-headers']).replace(/ /g, ''), 'Authorization,Content-Type');
    const other = await s.request('OPTIONS', '/api/v1/dashboards', {
      headers: { origin: 'https://evil.test', 'access-control-request-method': 'GET' },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const simple = await s.request('GET', '/health', { headers: { origin: 'https://dash.example.com' } });
    assert.equal(simple.headers['access-control-allow-origin'], 'https://dash.example.com');
    // A refusal reaches the script with the headers too, so it can read why (the access check answers it first).
    const refused = await s.request('GET', '/api/v1/dashboards', { headers: { origin: 'https://dash.example.com' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], 'https://dash.example.com');
    assert.match(String(refused.headers['access-control-expose-headers']), /X-RateLimit-Remaining/);
    assert.equal(refused.headers.vary, 'Origin');
  } finally {
    await s.close();
  }
});

test("rate limits per plan default to the document's and can be set per plan", () => {
  assert.deepEqual(load({}).rateLimits, { free: 60, pro: 300, enterprise: 1000 });
  assert.deepEqual(load({ DASHBOARD_RATE_LIMITS: 'pro=500' }).rateLimits, { free: 60, pro: 500, enterprise: 1000 });
  for (const bad of ['gold=5', 'free=0', 'free=-1', 'free', 'free=1.5'])
    refused({ DASHBOARD_RATE_LIMITS: bad }, 'DASHBOARD_RATE_LIMITS', /plan=requests/);
});

test('every route of the OpenAPI document has an operationId and the dashboard schemas', async () => {
  const s = await startDashboard('dashopenapi');
  try {
    const doc = (await s.request('GET', '/openapi.json')).body;
    const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([m, op]) => ({ path, m, op })),
    );
    assert.ok(ops.length >= 25);
    for (const { path, m, op } of ops)
      if (path !== '/metrics') assert.ok(op.operationId, `${m} ${path} has no operationId`);
    assert.ok(doc.paths['/api/v1/dashboards'].get);
    assert.ok(doc.components.securitySchemes.bearerAuth);
  } finally {
    await s.close();
  }
});
