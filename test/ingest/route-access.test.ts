import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { registeredRoutes, type RegisteredRoute } from '../../src/kit/app.ts';
import { startIngest, type IngestHarness } from './helpers.ts';

/**
 * Every route ingest registers declares who may call it (src/kit/access.ts, src/ingest/access.ts), and every route
 * that is not public refuses a caller without credentials before reading the body: a malformed body, a wrong content
 * type or an oversize one from nobody is 401, never 400, 415 or 500.
 */

let h: IngestHarness;
let routes: RegisteredRoute[];

before(async () => {
  h = await startIngest({ INGEST_ALLOWED_ORIGINS: 'https://shop.example.com' }, 'ingestaccess');
  await h.app.ready();
  routes = registeredRoutes(h.app);
});
after(async () => h?.close());

/** The kind of rule each route must declare, from where it is. */
function expectedKind(method: string, url: string): string {
  if (['/health', '/ready', '/metrics', '/openapi.json', '/sdk/:file'].includes(url)) return 'public';
  // The preflight and the 405s of every other method are answered before the key is looked at.
  if (url === '/v1/events') return method === 'POST' ? 'api-key' : 'public';
  // The admin API's CORS preflight: a browser sends it without credentials (src/kit/cors.ts).
  if (url === '/api/v1/*' && method === 'OPTIONS') return 'public';
  if (url.startsWith('/api/v1/')) return 'admin';
  return 'unexpected';
}

const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, 'x1');
const MALFORMED = { headers: { 'content-type': 'application/json' }, payload: '{"events": [' };

test('every route declares its access, of the kind its place calls for', () => {
  assert.ok(routes.length >= 40, `only ${routes.length} routes`);
  const wrong = routes
    .filter((r) => r.access?.kind !== expectedKind(r.method, r.url))
    .map((r) => `${r.method} ${r.url}: ${r.access?.kind}, expected ${expectedKind(r.method, r.url)}`);
  assert.deepEqual(wrong, []);
  const admin = routes.filter((r) => r.access?.kind === 'admin');
  assert.ok(admin.length >= 13, `only ${admin.length} admin routes`);
  for (const r of admin) assert.equal((r.access as { scope?: string }).scope, 'ingest:admin', `${r.method} ${r.url}`);
});

test('the admin routes answer 401 to nobody and to a token that is none, whatever the body, before reading it', async () => {
  for (const r of routes.filter((x) => x.access?.kind === 'admin')) {
    for (const authorization of [undefined, 'Bearer not-the-admin-token']) {
      const res = await h.app.inject({
        method: r.method as 'GET',
        url: concrete(r.url),
        ...(r.method === 'GET' || r.method === 'HEAD'
          ? { headers: authorization ? { authorization } : {} }
          : { ...MALFORMED, headers: { ...MALFORMED.headers, ...(authorization ? { authorization } : {}) } }),
      });
      const what = `${r.method} ${r.url} ${authorization ?? 'without a token'}`;
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="ingest"/, what);
      if (r.method !== 'HEAD') assert.equal(res.json().error.code, 'UNAUTHORIZED', what);
    }
  }
});

const unauthorizedCount = async () => {
  const text = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/^ingest_requests_rejected_total\{reason="unauthorized"\} (\d+)$/m.exec(text)?.[1] ?? 0);
};

test('POST /v1/events answers 401 to nobody before its body: malformed, of another type or over 10 MB', async () => {
  const counted = await unauthorizedCount();
  const bodies = [
    MALFORMED,
    { headers: { 'content-type': 'text/plain' }, payload: 'not json' },
    { headers: { 'content-type': 'application/json', 'content-encoding': 'br' }, payload: 'x' },
    { headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(11 * 1024 * 1024, 0x20) },
  ];
  for (const body of bodies) {
    for (const key of [undefined, 'isk_not-a-key']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: { ...body.headers, ...(key ? { 'x-svc-api-key': key } : {}) },
        payload: body.payload,
      });
      const what = `${body.headers['content-type']} ${key ?? 'without a key'}`;
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
      assert.equal(res.json().error.code, 'UNAUTHORIZED', what);
      assert.match(res.json().error.message, key ? /^invalid or revoked API key$/ : /X-Svc-API-Key/, what);
    }
  }
  assert.equal(await unauthorizedCount(), counted + bodies.length * 2, 'each refusal is counted');
});

test('the public routes answer without credentials', async () => {
  const answers: Record<string, number> = {};
  for (const [method, url] of [
    ['GET', '/health'],
    ['GET', '/ready'],
    ['GET', '/metrics'],
    ['GET', '/openapi.json'],
    ['GET', '/sdk/v1.js'],
    ['GET', '/v1/events'],
  ] as const) {
    answers[`${method} ${url}`] = (await h.app.inject({ method, url })).statusCode;
  }
  assert.deepEqual(answers, {
    'GET /health': 200,
    'GET /ready': 200,
    'GET /metrics': 200,
    'GET /openapi.json': 200,
    'GET /sdk/v1.js': 200,
    'GET /v1/events': 405,
  });
  const preflight = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
  });
  assert.equal(preflight.statusCode, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], 'https://shop.example.com');
});

test("each route's OpenAPI security says what its declaration enforces", async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { security?: unknown }>>;
  };
  const expected: Record<string, unknown> = {
    public: undefined,
    'api-key': [{ apiKey: [] }],
    admin: [{ adminToken: ['ingest:admin'] }],
  };
  const wrong: string[] = [];
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const operation = doc.paths[path]?.[r.method.toLowerCase()];
    if (!operation || r.method === 'HEAD') continue;
    if (JSON.stringify(operation.security) !== JSON.stringify(expected[r.access!.kind]))
      wrong.push(`${r.method} ${r.url}: ${JSON.stringify(operation.security)}`);
  }
  assert.deepEqual(wrong, []);
});
