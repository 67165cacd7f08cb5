import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { registeredRoutes, type RegisteredRoute } from '../../src/kit/app.ts';
import { startServer, basic, form, type Server } from './support.ts';

/**
 * Every route identity registers declares who may call it (src/kit/access.ts, src/identity/access/rules.ts), and every
 * route that is not public refuses a caller without credentials before reading the body: a malformed body from nobody
 * is 401 (or, for the signed-in pages, the page's own sign-in), never 400, 415 or 500.
 */

let server: Server;
let routes: RegisteredRoute[];

before(async () => {
  server = await startServer('idaccess', { IDENTITY_ADMIN_TOKEN: 'route-access-admin-token-0123456789' });
  routes = registeredRoutes(server.app);
});
after(async () => server?.close());

/** Public on purpose: OAuth's endpoints authenticate their own callers, and the sign-in pages are where one signs in. */
const PUBLIC_URLS = new Set([
  '/health',
  '/ready',
  '/metrics',
  '/openapi.json',
  '/oauth/*',
  '/oauth/token',
  '/oauth/introspect',
  '/oauth/authorize',
  '/oauth/logout',
  '/.well-known/openid-configuration',
  '/.well-known/jwks.json',
  '/interaction/:uid',
  '/interaction/:uid/login',
  '/interaction/:uid/consent',
  '/interaction/:uid/mfa',
  '/interaction/:uid/email-code',
  '/interaction/:uid/email-code/verify',
  '/interaction/:uid/passkey/options',
  '/interaction/:uid/passkey',
  '/interaction/:uid/upstream/:provider',
  '/upstream/:provider/callback',
  '/signin',
  '/signout',
  '/account/callback',
  '/invites/accept',
  '/account/choose-password',
  '/account/forgot-password',
  '/assets/simplewebauthn-browser.js',
  '/assets/passkey.js',
  '/api/v1/webhooks/stripe',
  '/api/v1/invitations/decline',
  // The CORS preflight (OPTIONS) of the API: a browser sends it without credentials (src/kit/cors.ts).
  '/api/v1/*',
]);

/** The kind of rule each route must declare. */
function expectedKind(url: string): string {
  if (PUBLIC_URLS.has(url)) return 'public';
  if (url === '/api/v1/invitations/accept' || url === '/api/v1/account/password' || url.startsWith('/api/v1/me/'))
    return 'person';
  if (/^\/api\/v1\/(listings|licenses)(\/|$)/.test(url) || url === '/api/v1/organizations/:id/subscription')
    return 'market';
  if (url === '/api/v1/held-scope') return 'resource-server';
  if (url.startsWith('/scim/v2/')) return 'scim';
  if (url.startsWith('/api/v1/')) return 'admin';
  if (url.startsWith('/account/') || url === '/agents' || url.startsWith('/agents/')) return 'signed-in';
  return 'unexpected';
}

const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, () => randomUUID());

test('every route declares its access, and each declares the kind its place calls for', () => {
  assert.ok(routes.length > 150, `only ${routes.length} routes`);
  const undeclared = routes.filter((r) => r.access === undefined).map((r) => `${r.method} ${r.url}`);
  assert.deepEqual(undeclared, []);
  const wrong = routes
    .filter((r) => r.access?.kind !== expectedKind(r.url))
    .map((r) => `${r.method} ${r.url}: ${r.access?.kind}, expected ${expectedKind(r.url)}`);
  assert.deepEqual(wrong, []);
  // The OAuth catch-all and the fast token and introspection routes are declared too: public at the HTTP layer.
  for (const [method, url] of [
    ['GET', '/oauth/*'],
    ['POST', '/oauth/*'],
    ['POST', '/oauth/token'],
    ['POST', '/oauth/introspect'],
  ] as const) {
    assert.equal(routes.find((r) => r.method === method && r.url === url)?.access?.kind, 'public', `${method} ${url}`);
  }
});

test('the API routes that are not public answer 401 to nobody, whatever the body, before reading it', async () => {
  const api = routes.filter((r) => ['admin', 'market', 'person'].includes(r.access!.kind));
  assert.ok(api.length > 80);
  for (const r of api) {
    const res = await server.app.inject({
      method: r.method as 'GET',
      url: concrete(r.url),
      ...(r.method === 'GET' || r.method === 'HEAD'
        ? {}
        : { headers: { 'content-type': 'application/json' }, payload: '{"not": json' }),
    });
    const what = `${r.method} ${r.url} (${r.access!.kind})`;
    assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm="identity"/, what);
    if (r.method !== 'HEAD') assert.equal(res.json().error.code, 'UNAUTHORIZED', what);
  }
});

test('a token that is no token is 401 on every such route, and a wrong content type from nobody is 401 too', async () => {
  const api = routes.filter((r) => ['admin', 'market', 'person'].includes(r.access!.kind) && r.method !== 'HEAD');
  for (const r of api) {
    const res = await server.app.inject({
      method: r.method as 'GET',
      url: concrete(r.url),
      headers: { authorization: 'Bearer not-a-live-token', 'content-type': 'text/plain' },
      ...(r.method === 'GET' ? {} : { payload: 'plain text' }),
    });
    assert.equal(res.statusCode, 401, `${r.method} ${r.url}: ${res.body}`);
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/, `${r.method} ${r.url}`);
  }
});

test('the resource-server routes answer 401 with a Basic challenge to nobody, before reading the body', async () => {
  const asked = routes.filter((r) => r.access!.kind === 'resource-server');
  assert.ok(asked.length >= 1);
  for (const r of asked) {
    const res = await server.app.inject({
      method: r.method as 'POST',
      url: concrete(r.url),
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-client' },
      payload: '{"not": json',
    });
    assert.equal(res.statusCode, 401, `${r.method} ${r.url}: ${res.body}`);
    assert.equal(res.headers['www-authenticate'], 'Basic realm="identity"');
    assert.equal(res.json().error.code, 'UNAUTHORIZED');
  }
});

test('the SCIM routes answer 401 in SCIM’s error shape to nobody and to an admin token, before reading the body', async () => {
  const asked = routes.filter((r) => r.access!.kind === 'scim' && r.method !== 'HEAD');
  assert.ok(asked.length >= 10);
  for (const authorization of [undefined, 'Bearer route-access-admin-token-0123456789', 'Bearer scim_not-a-token']) {
    for (const r of asked) {
      const res = await server.app.inject({
        method: r.method as 'POST',
        url: concrete(r.url),
        headers: { 'content-type': 'application/scim+json', ...(authorization ? { authorization } : {}) },
        ...(r.method === 'GET' ? {} : { payload: '{"not": json' }),
      });
      const what = `${r.method} ${r.url} (${authorization ?? 'no token'})`;
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="scim"/, what);
      assert.match(String(res.headers['content-type']), /^application\/scim\+json/, what);
      assert.deepEqual(res.json().schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'], what);
      assert.equal(res.json().status, '401', what);
    }
  }
});

test('the signed-in pages send a signed-out browser to the sign-in, and refuse its forms, before reading the body', async () => {
  const pages = routes.filter((r) => r.access!.kind === 'signed-in');
  assert.ok(pages.length >= 20);
  for (const r of pages) {
    const url = concrete(r.url);
    const what = `${r.method} ${r.url}`;
    if (r.method === 'GET' || r.method === 'HEAD') {
      const res = await server.app.inject({ method: r.method, url });
      assert.equal(res.statusCode, 303, what);
      const location = new URL(String(res.headers.location), server.issuer);
      assert.equal(location.pathname, '/signin', what);
      assert.match(location.searchParams.get('return_to') ?? '', /^\/(account\/|agents)/, what);
      assert.equal(res.headers['cache-control'], 'no-store', what);
      continue;
    }
    const res = await server.app.inject({
      method: r.method as 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${'%'.repeat(3)}&${'x'.repeat(40 * 1024)}`,
    });
    assert.equal(res.statusCode, 401, `${what}: ${res.body.slice(0, 200)}`);
    if (r.url.endsWith('/options')) {
      // A script's fetch (the passkey form's): OAuth-style JSON it can read.
      assert.deepEqual(res.json(), { error: 'login_required', error_description: 'sign in first' }, what);
    } else {
      assert.match(String(res.headers['content-type']), /^text\/html/, what);
      assert.match(res.body, /Signed out/, what);
      assert.match(res.body, /href="\/signin\?return_to=%2F/, what);
    }
  }
});

test('public OAuth endpoints stay public at the HTTP layer: client authentication is OAuth’s own, in its shape', async () => {
  const token = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic('nobody', 'not-a-secret') },
  );
  assert.equal(token.status, 401);
  assert.equal(token.json.error, 'invalid_client');
  const introspect = await form(`${server.issuer}/oauth/introspect`, { token: 'x' });
  assert.equal(introspect.status, 401);
  assert.equal(introspect.json.error, 'invalid_client');
  const wrong = await form(
    `${server.issuer}/oauth/introspect`,
    { token: 'x' },
    { authorization: basic('nobody', 's') },
  );
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.error, 'invalid_client');
  assert.equal((await fetch(`${server.issuer}/.well-known/openid-configuration`)).status, 200);
});

test('the OpenAPI document says what each route declares', async () => {
  const doc = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const securityOf = (r: RegisteredRoute) => {
    const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
    return doc.paths[path]?.[r.method.toLowerCase()]?.security;
  };
  const expected: Record<string, unknown> = {
    admin: [{ adminToken: ['admin'] }],
    market: [{ adminToken: [] }, { personToken: [] }],
    person: [{ personToken: [] }],
    'signed-in': [{ loginSession: [] }],
    'resource-server': [{ clientBasic: [] }],
    scim: [{ scimToken: [] }],
  };
  for (const r of routes.filter((x) => !x.hidden && x.method !== 'HEAD')) {
    const kind = r.access!.kind;
    const security = securityOf(r);
    if (kind === 'public') assert.ok(security === undefined || security.length === 0, `${r.method} ${r.url}`);
    else assert.deepEqual(security, expected[kind], `${r.method} ${r.url}`);
  }
  assert.equal(doc.components.securitySchemes.loginSession.in, 'cookie');
  assert.equal(doc.components.securitySchemes.loginSession.name, '__Host-svc_login');
});
