import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * A project's own allowed origins (src/ingest/admin/origins-routes.ts, projects/origins.ts): set and read through the
 * admin API, checked one by one, and used by the CORS of `POST /v1/events` beside INGEST_ALLOWED_ORIGINS — the
 * preflight passes for an origin some project allows, the POST's answer is readable only for the key's project's.
 */
let h: IngestHarness;
let a: { projectId: string; key: string };
let b: { projectId: string; key: string };

before(async () => {
  h = await startIngest({ INGEST_ALLOWED_ORIGINS: 'https://everyone.example' }, 'projorigins');
  a = await h.project();
  b = await h.project();
});
after(async () => h?.close());

const put = (projectId: string, origins: unknown) =>
  h.admin('PUT', `/api/v1/projects/${projectId}/origins`, { origins });
const preflight = (origin: string) =>
  h.app.inject({
    method: 'OPTIONS',
    url: '/v1/events',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
const post = (origin: string, p: { projectId: string; key: string }) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { origin, 'x-svc-api-key': p.key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events: [makeEvent(p.projectId)] }),
  });
function assertError(res: { statusCode: number; json(): any }, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.match(res.json().error.message, message);
}

test('a project starts with no origin of its own; the service-wide ones are said beside', async () => {
  const res = await h.admin('GET', `/api/v1/projects/${a.projectId}/origins`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { project_id: a.projectId, origins: [], service_origins: ['https://everyone.example'] });
  assertError(await h.admin('GET', '/api/v1/projects/nope/origins'), 404, /no project nope/);
});

test('origins are stored as browsers send them, without repeats, in the order given', async () => {
  const res = await put(a.projectId, [
    'https://Shop.Example.com/',
    'http://localhost:3000',
    'https://shop.example.com',
  ]);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().origins, ['https://shop.example.com', 'http://localhost:3000']);
  assert.deepEqual((await h.admin('GET', `/api/v1/projects/${a.projectId}/origins`)).json().origins, [
    'https://shop.example.com',
    'http://localhost:3000',
  ]);
});

test('each bad origin is refused naming its place; nothing is stored', async () => {
  const before = (await h.admin('GET', `/api/v1/projects/${a.projectId}/origins`)).json().origins;
  const cases: [unknown, RegExp][] = [
    [['shop.example.com'], /^origins\[0\]: must be an origin such as https:\/\/shop\.example\.com$/],
    [['https://ok.example', 'javascript:alert(1)'], /^origins\[1\]: must start with https:\/\/ or http:\/\/$/],
    [['https://ok.example/shop'], /^origins\[0\]: must be scheme, host and port only \(https:\/\/ok\.example\)/],
    [['https://ok.example?x=1'], /^origins\[0\]: must be scheme, host and port only/],
    [['https://ok.example/#top'], /^origins\[0\]: must be scheme, host and port only/],
    [['https://user:pw@ok.example'], /^origins\[0\]: must not carry a user name or password$/],
    [['https://ok.example\u0000'], /NUL/],
    [Array.from({ length: 101 }, (_, i) => `https://s${i}.example`), /origins/],
    ['https://ok.example', /origins/],
    [[42], /origins/],
  ];
  for (const [origins, message] of cases) assertError(await put(a.projectId, origins), 400, message);
  assertError(
    await h.admin('PUT', `/api/v1/projects/${a.projectId}/origins`, { origins: [], extra: 1 }),
    400,
    /additional/i,
  );
  assertError(await put('nope', ['https://ok.example']), 404, /no project nope/);
  assert.deepEqual((await h.admin('GET', `/api/v1/projects/${a.projectId}/origins`)).json().origins, before);
});

test("the events endpoint's CORS follows each project's origins beside the service-wide ones", async () => {
  await put(a.projectId, ['https://shop.example.com']);
  await put(b.projectId, []);
  // A preflight carries no key: an origin some project allows passes, any other is refused.
  const ok = await preflight('https://shop.example.com');
  assert.equal(ok.statusCode, 204, ok.body);
  assert.equal(ok.headers['access-control-allow-origin'], 'https://shop.example.com');
  assertError(await preflight('https://elsewhere.example'), 403, /add it to the project's allowed origins/);
  assert.equal((await preflight('https://everyone.example')).statusCode, 204);

  // The answer to the POST is readable from the origin when the key's project allows it (or everyone does).
  const own = await post('https://shop.example.com', a);
  assert.equal(own.statusCode, 202, own.body);
  assert.equal(own.headers['access-control-allow-origin'], 'https://shop.example.com');
  const other = await post('https://shop.example.com', b);
  assert.equal(other.statusCode, 202, 'the key authenticates; the origin only governs what the browser may read');
  assert.equal(other.headers['access-control-allow-origin'], undefined);
  assert.equal(
    (await post('https://everyone.example', b)).headers['access-control-allow-origin'],
    'https://everyone.example',
  );
  const bad = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { origin: 'https://shop.example.com', 'x-svc-api-key': 'isk_nope', 'content-type': 'application/json' },
    payload: '{"events":[]}',
  });
  assert.equal(bad.statusCode, 401);

  // A change counts at once (the cache hears it), not after the cache's time to live.
  await put(a.projectId, []);
  assert.equal((await preflight('https://shop.example.com')).statusCode, 403);
  assert.equal((await post('https://shop.example.com', a)).headers['access-control-allow-origin'], undefined);
  await put(b.projectId, ['https://shop.example.com']);
  assert.equal((await preflight('https://shop.example.com')).statusCode, 204);
  assert.equal(
    (await post('https://shop.example.com', b)).headers['access-control-allow-origin'],
    'https://shop.example.com',
  );
});

test('the OpenAPI document describes the origins routes', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const path = doc.paths['/api/v1/projects/{projectId}/origins'];
  assert.equal(path.get.operationId, 'getProjectOrigins');
  assert.equal(path.put.operationId, 'setProjectOrigins');
  assert.deepEqual(path.put.security, [{ adminToken: ['ingest:admin'] }]);
});
