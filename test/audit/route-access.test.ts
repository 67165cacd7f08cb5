import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { registeredRoutes } from '../../src/kit/app.ts';
import { startAudit, type AuditHarness } from './support.ts';

/**
 * Every route of the audit app declares who may call it, and the declaration is enforced before the body is read:
 * a caller without credentials is 401 whatever it sent, never a 400 that tells a stranger how to shape a request.
 */

let h: AuditHarness;

before(async () => {
  // No worker: nothing here is audited.
  h = await startAudit({ AUDIT_CONCURRENCY: '0' }, 'auditaccess');
});

after(async () => {
  await h?.close();
});

const PROBES = ['/health', '/ready', '/metrics', '/openapi.json', '/api/v1/health'];
/** The probes, and the API's CORS preflight (OPTIONS, sent by browsers without credentials): the only routes anyone may call. */
const PUBLIC_ROUTES = [...PROBES, '/api/v1/*'];

const concrete = (url: string) => url.replace(/:(\w+)/g, 'x');

test('every route declares its access; only the probes are public', () => {
  const routes = registeredRoutes(h.app);
  assert.ok(routes.length >= 12, `routes were listed: ${routes.length}`);
  for (const r of routes) assert.ok(r.access, `${r.method} ${r.url} declares access`);
  const open = routes.filter((r) => r.access?.kind === 'public').map((r) => r.url);
  assert.deepEqual([...new Set(open)].sort(), [...PUBLIC_ROUTES].sort());
  const guarded = routes.filter((r) => r.access?.kind !== 'public');
  assert.ok(
    guarded.every((r) => r.access?.kind === 'caller' || r.access?.kind === 'person'),
    'every other route asks for a caller',
  );
  assert.deepEqual(
    [...new Set(guarded.filter((r) => r.access?.kind === 'person').map((r) => r.url))].sort(),
    ['/api/v1/keys', '/api/v1/keys/:id'],
    'only the key routes ask for a person (an access token, not a key)',
  );
  for (const url of ['/audit', '/api/v1/audits', '/api/v1/audits/:id/report'])
    assert.ok(
      guarded.some((r) => r.url === url),
      `${url} is guarded`,
    );
});

test('every guarded route: no credentials and a malformed body is 401 with a challenge, never 400', async () => {
  const guarded = registeredRoutes(h.app).filter((r) => !PUBLIC_ROUTES.includes(r.url));
  const bodies: Array<[string, string]> = [
    ['not JSON', '{"url": '],
    ['the wrong shape', JSON.stringify({ url: 42, crawl: 'yes', unknown: true })],
  ];
  for (const route of guarded) {
    for (const [what, payload] of bodies) {
      for (const headers of [{}, { authorization: 'Bearer ak_unknown' }, { 'x-api-key': 'not-a-key' }]) {
        const res = await h.app.inject({
          method: route.method as 'GET',
          url: `${concrete(route.url)}?unknown=1&limit=-5`,
          headers: { ...headers, 'content-type': 'application/json' },
          payload,
        });
        const label = `${route.method} ${route.url}, ${what}, ${JSON.stringify(headers)}`;
        assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
        assert.match(String(res.headers['www-authenticate']), /^Bearer realm="audit"/, label);
        if (route.method !== 'HEAD') assert.equal(res.json().error.code, 'UNAUTHORIZED', label);
      }
    }
  }
});

test('a body sent as text or too large is 401 too when the caller is unknown; the body is checked once the caller passed', async () => {
  const text = await h.app.inject({
    method: 'POST',
    url: '/api/v1/audits',
    headers: { 'content-type': 'text/plain' },
    payload: 'http://127.0.0.1:9/',
  });
  assert.equal(text.statusCode, 401, text.body);
  const large = await h.app.inject({
    method: 'POST',
    url: '/audit',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ url: `http://127.0.0.1:9/${'a'.repeat(70 * 1024)}` }),
  });
  assert.equal(large.statusCode, 401, large.body);

  const malformed = await h.app.inject({
    method: 'POST',
    url: '/api/v1/audits',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    payload: '{"url": ',
  });
  assert.equal(malformed.statusCode, 400, malformed.body);
  const wrongShape = await h.call('POST', '/audit', { url: 42 });
  assert.equal(wrongShape.statusCode, 400, wrongShape.body);
  assert.match(wrongShape.json().error.message, /url/);
});

test('the probes answer without credentials', async () => {
  for (const url of PROBES) {
    const res = await h.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  }
});
