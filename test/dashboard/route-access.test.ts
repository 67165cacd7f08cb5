import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registeredRoutes, type RegisteredRoute } from '../../src/kit/app.ts';
import { renderCredentialFor } from './render-credential.ts';
import { startDashboard, type DashboardServer } from './harness.ts';

/** What the dashboard declares: the kit's PUBLIC, OPEN and LINK_VISITOR (src/dashboard/auth/access.ts), signedIn(role), signedInOnSource(role). */
const KINDS = new Set(['public', 'open', 'publicLink', 'role']);
/** The only routes nobody is counted on: the kit's probes, the web app's files and CORS preflights. */
const UNCOUNTED = new Set(['/health', '/ready', '/metrics', '/openapi.json', '/', '/*', '*']);

/** A concrete path for a route's URL, with path parameters that do not even pass validation. */
const pathOf = (url: string) => url.replace(/:[A-Za-z]+/g, 'not-valid!').replace(/\*$/, 'anything');
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

describe('every dashboard route declares who may call it', () => {
  let s: DashboardServer;
  let routes: RegisteredRoute[];
  before(async () => {
    // Anonymous callers share the address's budget (the free plan's): raised so this walk is not rate limited.
    s = await startDashboard('dashroutes', { DASHBOARD_RATE_LIMITS: 'free=100000' });
    routes = registeredRoutes(s.app);
  });
  after(async () => s?.close());

  test('each route has a declaration of a kind the dashboard checks; only probes, files and preflights are PUBLIC', () => {
    assert.ok(routes.length > 50, `${routes.length} routes`);
    for (const r of routes) {
      assert.ok(r.access, `${r.method} ${r.url} declares no access`);
      assert.ok(KINDS.has(r.access.kind), `${r.method} ${r.url}: ${r.access.kind}`);
      if (r.access.kind === 'public') assert.ok(UNCOUNTED.has(r.url), `${r.method} ${r.url} is PUBLIC`);
      if (r.access.kind === 'role')
        assert.ok(
          ['viewer', 'editor', 'admin', 'owner'].includes((r.access as unknown as { role: string }).role),
          `${r.method} ${r.url}`,
        );
    }
    const kindOf = (method: string, url: string) => routes.find((r) => r.method === method && r.url === url)?.access;
    assert.deepEqual(kindOf('POST', '/api/v1/query'), { kind: 'role', role: 'editor' });
    // The source is read with the token (signedInOnSource); who may call is the same editor rule.
    assert.deepEqual(kindOf('POST', '/api/v1/datasources/:id/query'), {
      kind: 'role',
      role: 'editor',
      dataSourceParam: 'id',
    });
    // The POSTs a dashboard page makes to read: a subscription render's credential may call them (test below).
    for (const url of [
      '/api/v1/dashboards/:id/widgets/:widgetId/run',
      '/api/v1/dashboards/:id/parameters/:name/options',
    ])
      assert.deepEqual(kindOf('POST', url), { kind: 'role', role: 'viewer', reads: true }, url);
    assert.deepEqual(kindOf('POST', '/api/v1/auth/refresh'), { kind: 'open' });
    assert.deepEqual(kindOf('GET', '/api/v1/public/dashboards/:token'), { kind: 'publicLink' });
    assert.deepEqual(kindOf('GET', '/*'), { kind: 'public' });
  });

  test('without credentials every signed-in route is 401 whatever the body and path, counted against the address', async () => {
    let checked = 0;
    for (const r of routes.filter((x) => x.access?.kind === 'role')) {
      const bodies: (string | undefined)[] = WITH_BODY.has(r.method)
        ? ['{"nonsense": [1', '{"nonsense": [1]}']
        : [undefined];
      for (const payload of bodies) {
        const res = await s.app.inject({
          method: r.method as 'GET',
          url: pathOf(r.url),
          headers: payload === undefined ? {} : { 'content-type': 'application/json' },
          ...(payload === undefined ? {} : { payload }),
        });
        const what = `${r.method} ${r.url} ${payload ?? ''}: ${res.statusCode} ${res.body}`;
        assert.equal(res.statusCode, 401, what);
        if (r.method !== 'HEAD') assert.equal(res.json().error.code, 'UNAUTHORIZED', what);
        assert.equal(res.headers['www-authenticate'], 'Bearer', what);
        assert.equal(res.headers['x-ratelimit-limit'], '100000', what);
        checked++;
      }
    }
    assert.ok(checked >= 60, `${checked} requests`);
  });

  test("a subscription render's credential, made for an owner, passes only a viewer's GET routes and reading POSTs", async () => {
    const owner = await s.signIn({ tenant: 'renders', role: 'owner' });
    const { credential, db } = await renderCredentialFor(s, owner);
    const headers = { authorization: `Bearer ${credential.pair.accessToken}`, 'content-type': 'application/json' };
    const passed: string[] = [];
    let refused = 0;
    try {
      for (const r of routes.filter((x) => x.access?.kind === 'role')) {
        const rule = r.access as unknown as { role: string; reads?: true };
        const reads = rule.role === 'viewer' && (rule.reads === true || r.method === 'GET' || r.method === 'HEAD');
        const res = await s.app.inject({
          method: r.method as 'GET',
          url: pathOf(r.url),
          headers: WITH_BODY.has(r.method) ? headers : { authorization: headers.authorization },
          ...(WITH_BODY.has(r.method) ? { payload: '{}' } : {}),
        });
        const what = `${r.method} ${r.url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        if (reads) {
          assert.ok(![401, 403].includes(res.statusCode), what);
          passed.push(`${r.method} ${r.url}`);
        } else {
          assert.equal(res.statusCode, 403, what);
          if (r.method !== 'HEAD') assert.match(res.json().error.message, /render's credential .*only reads/, what);
          refused++;
        }
      }
      assert.ok(passed.includes('GET /api/v1/dashboards/:id'), passed.join(', '));
      assert.ok(passed.includes('POST /api/v1/dashboards/:id/widgets/:widgetId/run'), passed.join(', '));
      assert.ok(refused >= 40, `${refused} routes refused`);
      // The owner's own sign-in is not read-only: the same kind of route answers it.
      const own = await s.request('POST', '/api/v1/dashboards', { as: owner, body: {} });
      assert.equal(own.status, 400, JSON.stringify(own.body));
    } finally {
      await credential.revoke();
      await db.close();
    }
    const after = await s.app.inject({
      method: 'GET',
      url: '/api/v1/dashboards',
      headers: { authorization: headers.authorization },
    });
    assert.equal(after.statusCode, 401, 'revoked once the render is done');
  });

  test('a forged or malformed token is no better than none', async () => {
    for (const authorization of ['Bearer not.a.jwt', 'Basic dXNlcjpwdw==', 'Bearer ']) {
      const res = await s.app.inject({
        method: 'POST',
        url: '/api/v1/datasources/1/query',
        headers: { authorization, 'content-type': 'application/json' },
        payload: '{"query": 5}',
      });
      assert.equal(res.statusCode, 401, authorization);
    }
  });

  test('open and public-link routes answer anyone, counted against the address; PUBLIC ones are not counted', async () => {
    // What anyone gets with the walk's path and body ({"x": 1}): an answer of the route itself, never a refusal.
    const expected: Record<string, number> = {
      '/health': 200,
      '/ready': 200,
      '/metrics': 200,
      '/openapi.json': 200,
      '*': 404, // no CORS origin is configured: no preflight is answered
      '/api/v1/auth/refresh': 400, // no refreshToken field
      '/api/v1/auth/providers': 200,
      '/api/v1/auth/:provider': 400, // the path's provider is not a provider id
      '/api/v1/auth/:provider/callback': 400,
      '/api/v1/datasources/providers': 200,
      '/api/v1/console/config': 200,
      '/api/v1/public/dashboards/:token': 400, // not a link's token
      '/api/v1/public/dashboards/:token/widgets/:widgetId/run': 400,
      '/api/v1/setup': 400, // GET is 200, the POST below has no tenantName
      '/': 200,
      '/*': 200,
    };
    const open = routes.filter((x) => x.access?.kind !== 'role');
    assert.deepEqual([...new Set(open.map((r) => r.url))].sort(), Object.keys(expected).sort());
    for (const r of open) {
      const res = await s.app.inject({
        method: r.method as 'GET',
        url: pathOf(r.url),
        ...(WITH_BODY.has(r.method) ? { headers: { 'content-type': 'application/json' }, payload: '{"x": 1}' } : {}),
      });
      const what = `${r.method} ${r.url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
      const status = r.url === '/api/v1/setup' && r.method !== 'POST' ? 200 : expected[r.url];
      assert.equal(res.statusCode, status, what);
      if (r.access?.kind === 'public') assert.equal(res.headers['x-ratelimit-limit'], undefined, what);
      else assert.equal(res.headers['x-ratelimit-limit'], '100000', what);
    }
  });

  test('the OpenAPI document asks for a bearer token exactly on the signed-in routes', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    let documented = 0;
    for (const r of routes.filter((x) => x.method !== 'HEAD' && !x.hidden)) {
      const op = doc.paths[r.url.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()];
      if (!op) continue;
      documented++;
      if (r.access?.kind === 'role') assert.deepEqual(op.security, [{ bearerAuth: [] }], `${r.method} ${r.url}`);
      else assert.equal(op.security, undefined, `${r.method} ${r.url}`);
    }
    assert.ok(documented > 45, `${documented} documented`);
  });
});
