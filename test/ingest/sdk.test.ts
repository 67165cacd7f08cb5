import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import type { App } from '../../src/kit/app.ts';
import { buildSdk, SDK_MAX_GZIP_BYTES } from '../../sdk/build.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const ADMIN = 'sdk-test-admin-token-0123456789';
let database: FreshDatabase;
let dataDir: ReturnType<typeof tempDir>;
let sql: pg.Client;
let ingest: App;
let ingestPort: number;
let site: Server;
let siteOrigin: string;
let browser: Browser;
let projectId: string;
let apiKey: string;

function ingestConfig() {
  return loadIngestConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'silent',
    INGEST_ADMIN_TOKEN: ADMIN,
    INGEST_ALLOWED_ORIGINS: siteOrigin,
  });
}

const batchWaiters: (() => void)[] = [];
/** Resolves when the ingest service has next answered a batch, whichever page (or a page already gone) sent it. */
const nextBatch = () => new Promise<void>((resolve) => batchWaiters.push(resolve));

async function startIngest(port = 0): Promise<void> {
  ingest = await buildIngestApp(ingestConfig());
  ingest.addHook('onResponse', async (request) => {
    if (request.url === '/v1/events' && request.method === 'POST') for (const w of batchWaiters.splice(0)) w();
  });
  await ingest.listen({ host: '127.0.0.1', port });
  ingestPort = (ingest.server.address() as AddressInfo).port;
}

/** The site under test: a page that loads the SDK from the ingest service (another origin), an API and a page without the SDK. */
function page(opts: Record<string, unknown>): string {
  return `<!DOCTYPE html><html lang="en"><head><title>Shop</title></head><body>
<main data-component="Checkout"><h1>Checkout</h1>
<form name="pay" action="/other" onsubmit="event.preventDefault()"><label>Card <input id="card" name="card"></label>
<button type="button" id="pay" class="primary big">Pay now</button></form>
<p data-ingest-mask><button type="button" id="secret">Account 1234</button></p></main>
<script>function boomInline() { throw new Error('thrown by a script inline in the page'); }</script>
<script type="module">
import * as sdk from 'http://127.0.0.1:${ingestPort}/sdk/v1.js';
window.sdk = sdk;
window.rejected = [];
window.seen = [];
sdk.init({ endpoint: 'http://127.0.0.1:${ingestPort}', apiKey: ${JSON.stringify(apiKey)}, projectId: ${JSON.stringify(projectId)},
  onRejected: (r) => window.rejected.push(...r),
  beforeSend: (e) => (window.seen.push(e['event.type']), e.metadata && e.metadata.drop ? null : e),
  ...${JSON.stringify(opts)} });
window.ready = true;
</script></body></html>`;
}

let siteOptions: Record<string, unknown> = {};

before(async () => {
  database = await freshPostgres('sdk');
  dataDir = tempDir();
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/api/items') {
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (path.startsWith('/ingest-proxy/')) {
      // A same-origin path in front of the service, as sites do to keep their telemetry first-party.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = {
          'content-type': String(req.headers['content-type'] ?? ''),
          'x-svc-api-key': String(req.headers['x-svc-api-key'] ?? ''),
        };
        fetch(`http://127.0.0.1:${ingestPort}${path.slice('/ingest-proxy'.length)}`, {
          method: req.method,
          headers,
          ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
        })
          .then(async (r) =>
            res
              .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' })
              .end(Buffer.from(await r.arrayBuffer())),
          )
          .catch(() => res.writeHead(502).end());
      });
    } else if (path === '/other') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!DOCTYPE html><html lang="en"><title>Other</title><p>other</p></html>');
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(siteOptions));
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  await startIngest();
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  const auth = { authorization: `Bearer ${ADMIN}` };
  projectId = 'shop';
  const created = await ingest.inject({
    method: 'POST',
    url: '/api/v1/projects',
    headers: auth,
    payload: { id: projectId, name: 'Shop' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const key = await ingest.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/keys`,
    headers: auth,
    payload: { name: 'browser' },
  });
  apiKey = key.json().key;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});

after(async () => {
  await browser?.close();
  await sql?.end();
  await ingest?.close();
  await new Promise((resolve) => site?.close(resolve));
  await database?.drop();
  dataDir?.remove();
});

interface Row {
  event_type: string;
  session_id: string;
  body: Record<string, unknown>;
}

async function rowsOf(session: string): Promise<Row[]> {
  const { rows } = await sql.query<Row>(
    `SELECT event_type, session_id, body FROM ingest.events WHERE session_id = $1 ORDER BY (body->>'event.sequence')::int`,
    [session],
  );
  return rows;
}

/** The bodies of the event batches each page's context has posted, whether or not the service took them. */
const posted = new WeakMap<Page, string[]>();

/** Opens the site in a fresh context (its own sessionStorage and IndexedDB) with these SDK options. */
async function open(opts: Record<string, unknown> = {}, initScript?: string): Promise<Page> {
  siteOptions = { flushIntervalMs: 60_000, ...opts };
  const context = await browser.newContext();
  if (initScript) await context.addInitScript(initScript);
  const p = await context.newPage();
  const bodies: string[] = [];
  posted.set(p, bodies);
  context.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/v1/events')) bodies.push(r.postData() ?? '');
  });
  p.on('pageerror', () => {});
  await p.goto(`${siteOrigin}/app`);
  await p.waitForFunction('window.ready === true');
  return p;
}

const sessionOf = async (p: Page) =>
  (await p.evaluate(`JSON.parse(sessionStorage.getItem('ingest.session.shop')).id`)) as string;
/** Resolves when the SDK has sent what it queued and the service has answered. */
const flushed = (p: Page) => p.evaluate('window.sdk.flush()');

test('the bundle stays within its size limit', async () => {
  const files = await buildSdk();
  const core = files.find((f) => f.name === 'v1.js')!;
  assert.ok(core.gzipBytes > 1000, 'the build produced the SDK');
  assert.ok(core.gzipBytes <= SDK_MAX_GZIP_BYTES, `v1.js is ${core.gzipBytes} bytes gzip`);
});

test('the service serves the SDK with caching headers, gzip and CORS', async () => {
  const res = await ingest.inject({ method: 'GET', url: '/sdk/v1.js', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(res.headers['content-encoding'], 'gzip');
  assert.match(String(res.headers['cache-control']), /max-age=300/);
  assert.equal(res.headers['access-control-allow-origin'], '*');
  const again = await ingest.inject({
    method: 'GET',
    url: '/sdk/v1.js',
    headers: { 'if-none-match': String(res.headers.etag) },
  });
  assert.equal(again.statusCode, 304);
  const missing = await ingest.inject({ method: 'GET', url: '/sdk/v2.js' });
  assert.equal(missing.statusCode, 404);
  assert.match(missing.json().error.message, /no SDK file v2\.js/);
});

test('page view, click, submit, error and API call arrive with one session and counted sequence', async () => {
  const p = await open();
  await p.click('#pay');
  await p.click('#secret');
  await p.click('h1');
  await p.fill('#card', '4242 4242 4242 4242');
  await p.evaluate(`document.forms.namedItem('pay').requestSubmit()`);
  await p.evaluate(`fetch('/api/items?token=hidden', { method: 'POST', body: 'secret body' })`);
  await p.evaluate(
    `addEventListener('error', () => { window.errorSeen = true; }); setTimeout(() => { throw new TypeError('boom in a handler'); })`,
  );
  await p.waitForFunction('window.errorSeen === true');
  await flushed(p);
  const session = await sessionOf(p);
  const rows = await rowsOf(session);
  const types = rows.map((r) => r.event_type);
  assert.ok(
    types.includes('page.view') &&
      types.includes('ui.click') &&
      types.includes('ui.submit') &&
      types.includes('api.request') &&
      types.includes('api.response') &&
      types.includes('error'),
    types.join(),
  );
  assert.deepEqual(
    rows.map((r) => r.body['event.sequence']),
    rows.map((_, i) => i + 1),
    'sequence counts 1..n in the session',
  );
  for (const r of rows) {
    assert.equal(r.body.project_id, 'shop');
    assert.match(String(r.body.event_id), /^[0-9a-f-]{36}$/);
    assert.equal(r.body['page.path'], '/app');
  }
  const pay = rows.find((r) => r.event_type === 'ui.click' && r.body['ui.element'] === 'button#pay.primary.big')!;
  assert.equal(pay.body['ui.element.text'], 'Pay now');
  assert.equal(pay.body['ui.component.name'], 'Checkout');
  assert.match(String(pay.body['ui.component.path']), /Checkout > form > button#pay/);
  const masked = rows.find((r) => r.body['ui.element'] === 'button#secret')!;
  assert.equal(masked.body['ui.element.text'], '', 'text in a masked element is not captured');
  const container = rows.find((r) => r.body['ui.element'] === 'main')!;
  assert.match(
    String(container.body['ui.element.text']),
    /^Checkout Card Pay now$/,
    'a click in a [data-component] names it, without the masked text it holds',
  );
  const serialized = JSON.stringify(rows.map((r) => r.body));
  assert.ok(!serialized.includes('4242'), 'form field values are never captured');
  assert.ok(
    !serialized.includes('Account 1234'),
    'text inside [data-ingest-mask] is never captured, whatever element was clicked',
  );
  assert.ok(
    !serialized.includes('hidden') && !serialized.includes('secret body'),
    'query strings and bodies are never captured',
  );
  const response = rows.find((r) => r.event_type === 'api.response')!;
  assert.equal(response.body['api.method'], 'POST');
  assert.equal(response.body['api.path'], '/api/items');
  assert.equal(response.body['api.status_code'], 201);
  assert.equal(typeof response.body['api.duration_ms'], 'number');
  const error = rows.find((r) => r.event_type === 'error')!;
  assert.equal(error.body['error.type'], 'TypeError');
  assert.equal(error.body['error.message'], 'boom in a handler');
  assert.ok(
    !types.some((t) => t === 'api.request' && rows.some((r) => String(r.body['api.path']).startsWith('/v1/events'))),
    'sending events makes no events',
  );
  await p.context().close();
});

test('an endpoint given as a same-origin path: the SDK does not capture its own requests as API calls', async () => {
  const p = await open({ endpoint: '/ingest-proxy/' });
  const requests: string[] = [];
  p.on('request', (r) => {
    if (r.url().includes('/v1/events')) requests.push(r.url());
  });
  await p.click('#pay');
  // Before the fix every send was captured as an api.request and api.response, which were sent, and so on: flush
  // never ended, so it is given a bound here.
  await Promise.race([flushed(p), new Promise((resolve) => setTimeout(resolve, 3000))]);
  await p.waitForTimeout(300);
  const sent = requests.length;
  await p.context().close();
  const rows = await sql.query<Row>(
    `SELECT event_type, session_id, body FROM ingest.events WHERE body->>'api.path' LIKE '/ingest-proxy%'`,
  );
  assert.deepEqual(
    rows.rows.map((r) => r.event_type),
    [],
    'sending events makes no events',
  );
  assert.ok(
    requests.every((u) => u === `${siteOrigin}/ingest-proxy/v1/events`),
    requests.join(),
  );
  assert.equal(sent, 1, `one request for the queued events, not ${sent}`);
  // Resolving against the page must not turn a missing endpoint into the page's own address.
  const q = await open();
  assert.match(
    String(
      await q.evaluate(
        `sdk.shutdown().then(() => { try { sdk.init({ apiKey: 'k', projectId: 'p' }); return 'no error'; } catch (e) { return e.message; } })`,
      ),
    ),
    /needs an endpoint/,
  );
  await q.context().close();
});

test('single-page navigation records a leave and a view of the new path', async () => {
  const p = await open();
  await p.evaluate(`history.pushState({}, '', '/app/cart')`);
  await p.evaluate(
    `new Promise((resolve) => { addEventListener('popstate', () => setTimeout(resolve), { once: true }); history.back(); })`,
  );
  await flushed(p);
  const rows = await rowsOf(await sessionOf(p));
  assert.deepEqual(
    rows.map((r) => `${r.event_type} ${r.body['page.path']}`),
    ['page.view /app', 'page.leave /app', 'page.view /app/cart', 'page.leave /app/cart', 'page.view /app'],
  );
  assert.equal(typeof rows[1]!.body.duration_ms, 'number');
  await p.context().close();
});

test('a view after pushState carries the title the app gives the new route, and keeps its place in the session', async () => {
  const p = await open();
  // As routers do: the address first, the title once the new route has rendered, here after its data came.
  // An event made meanwhile (the route's own request) comes after the view in the session.
  await p.evaluate(
    `history.pushState({}, '', '/app/cart'); sdk.track('state.change', { 'ui.state.key': 'cart' }); setTimeout(() => { document.title = 'Cart'; }, 150)`,
  );
  await p.waitForFunction(`document.title === 'Cart'`);
  // The title set in the same task (a microtask after a synchronous render), and back/forward.
  await p.evaluate(`history.pushState({}, '', '/app/pay'); Promise.resolve().then(() => { document.title = 'Pay'; })`);
  await p.evaluate(
    `new Promise((resolve) => { addEventListener('popstate', () => { document.title = 'Cart'; setTimeout(resolve); }, { once: true }); history.back(); })`,
  );
  // A title set before pushState is the new page's too.
  await p.evaluate(`document.title = 'Help'; history.pushState({}, '', '/app/help')`);
  await flushed(p);
  const rows = await rowsOf(await sessionOf(p));
  assert.deepEqual(
    rows.map((r) => `${r.event_type} ${r.body['page.path']} ${r.body['page.title']}`),
    [
      'page.view /app Shop',
      'page.leave /app Shop',
      'page.view /app/cart Cart',
      'state.change /app/cart Shop',
      'page.leave /app/cart Cart',
      'page.view /app/pay Pay',
      'page.leave /app/pay Pay',
      'page.view /app/cart Cart',
      'page.leave /app/cart Cart',
      'page.view /app/help Help',
    ],
  );
  assert.deepEqual(
    rows.map((r) => r.body['event.sequence']),
    rows.map((_, i) => i + 1),
  );
  assert.ok(
    String(rows[2]!.body['event.timestamp']) <= String(rows[3]!.body['event.timestamp']),
    'the view is timed at the navigation, not when the title came',
  );
  await p.context().close();
});

test('a route that keeps the title still gets its view, and one left at once is sent as the page goes away', async () => {
  const p = await open();
  const session = await sessionOf(p);
  await p.evaluate(`history.pushState({}, '', '/app/same')`);
  // Not flushed: the view waits for a title that never changes, then goes anyway.
  await p.waitForFunction(`window.seen.filter((t) => t === 'page.view').length === 2`, undefined, { timeout: 5000 });
  await p.evaluate(`history.pushState({}, '', '/app/gone')`);
  const sent = nextBatch();
  await p.goto(`${siteOrigin}/other`);
  await sent;
  const rows = await rowsOf(session);
  assert.deepEqual(
    rows.map((r) => `${r.event_type} ${r.body['page.path']} ${r.body['page.title']}`),
    [
      'page.view /app Shop',
      'page.leave /app Shop',
      'page.view /app/same Shop',
      'page.leave /app/same Shop',
      'page.view /app/gone Shop',
      'page.leave /app/gone Shop',
    ],
  );
  await p.context().close();
});

test('events queued when the page is hidden are sent as it goes away', async () => {
  const p = await open();
  const session = await sessionOf(p);
  await p.click('#pay');
  // The keepalive request outlives the page, so the service, not the page, tells of its arrival.
  const sent = nextBatch();
  await p.goto(`${siteOrigin}/other`);
  await sent;
  const rows = await rowsOf(session);
  assert.deepEqual(
    rows.map((r) => r.event_type),
    ['page.view', 'ui.click', 'page.leave'],
  );
  await p.context().close();
});

test('leaving with more queued than a keepalive may carry: the newest events go, within 64 KB counted in bytes', async () => {
  const p = await open({ batchSize: 1000, capture: { network: false } });
  const session = await sessionOf(p);
  const sizes: number[] = [];
  p.on('request', (r) => {
    if (r.url().endsWith('/v1/events') && r.method() === 'POST') sizes.push(Buffer.byteLength(r.postData() ?? ''));
  });
  // 150 events of ~800 bytes of UTF-8 but ~500 UTF-16 units each (a page in Japanese): ~120 KB in all.
  await p.evaluate(
    `for (let i = 1; i <= 150; i++) sdk.track('ui.input', { 'ui.element.text': '日本語のテキスト'.repeat(20), metadata: { n: i } })`,
  );
  const sent = nextBatch();
  await p.goto(`${siteOrigin}/other`);
  await sent;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const rows = await rowsOf(session);
  const types = rows.map((r) => r.event_type);
  assert.ok(
    sizes.every((n) => n <= 60_000),
    `keepalive bodies of ${sizes.join(', ')} bytes`,
  );
  assert.ok(types.includes('page.leave'), `the page.leave made as the page went away arrived: ${types.join()}`);
  const inputs = rows.filter((r) => r.event_type === 'ui.input').map((r) => (r.body.metadata as { n: number }).n);
  assert.ok(inputs.includes(150), 'the newest event arrived');
  assert.ok(inputs.length >= 60, `as many as 60 KB holds arrived, not ${inputs.length}`);
  await p.context().close();
});

test('a 503 with Retry-After is honoured before the retry', async () => {
  const p = await open({ retryBaseMs: 10 });
  const attempts: number[] = [];
  await p.route('**/v1/events', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    attempts.push(Date.now());
    if (attempts.length === 1)
      await route.fulfill({
        status: 503,
        headers: {
          'retry-after': '1',
          'access-control-allow-origin': siteOrigin,
          'access-control-expose-headers': 'Retry-After',
        },
        body: '{"error":"unavailable"}',
      });
    else await route.continue();
  });
  await p.click('#pay');
  const retried = p.waitForResponse((r) => r.url().endsWith('/v1/events') && r.status() === 202);
  await flushed(p);
  await retried;
  assert.equal(attempts.length, 2);
  assert.ok(
    attempts[1]! - attempts[0]! >= 950,
    `retried after ${attempts[1]! - attempts[0]!} ms, not before Retry-After's 1 s`,
  );
  const rows = await rowsOf(await sessionOf(p));
  assert.deepEqual(
    rows.map((r) => r.event_type),
    ['page.view', 'ui.click'],
  );
  await p.context().close();
});

test("a Retry-After too far off for a timer (a proxy's date years ahead) waits, rather than retrying at once without end", async () => {
  const p = await open({ retryBaseMs: 10 });
  let attempts = 0;
  await p.route('**/v1/events', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    attempts++;
    // Past setTimeout's 2^31 - 1 ms (24.8 days), which browsers take as 0.
    await route.fulfill({
      status: 503,
      headers: {
        'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT',
        'access-control-allow-origin': siteOrigin,
        'access-control-expose-headers': 'Retry-After',
      },
      body: '{}',
    });
  });
  await p.click('#pay');
  await flushed(p);
  await p.waitForTimeout(1500);
  assert.equal(attempts, 1, `${attempts} requests in 1.5 s after the service asked to wait`);
  await p.context().close();
});

test('offline events survive a reload in IndexedDB and are sent once back online', async () => {
  const p = await open({ flushIntervalMs: 200 });
  const session = await sessionOf(p);
  await flushed(p);
  await p.context().setOffline(true);
  await p.click('#pay');
  await p.click('#pay');
  await flushed(p);
  assert.deepEqual(
    (await rowsOf(session)).map((r) => r.event_type),
    ['page.view'],
  );
  await p.context().setOffline(false);
  await p.reload();
  await p.waitForFunction('window.ready === true');
  await flushed(p);
  const rows = await rowsOf(session);
  const types = rows.map((r) => r.event_type);
  assert.deepEqual(types.filter((t) => t === 'ui.click').length, 2, types.join());
  assert.equal(new Set(rows.map((r) => r.body.event_id)).size, rows.length, 'each event once');
  await p.context().close();
});

test('the service stopped mid-session and restarted: every event arrives once', async () => {
  const p = await open({ retryBaseMs: 50, retryMaxMs: 200 });
  const session = await sessionOf(p);
  await flushed(p);
  const port = ingestPort;
  await ingest.close();
  await p.click('#pay');
  await flushed(p);
  await startIngest(port);
  const delivered = p.waitForResponse((r) => r.url().endsWith('/v1/events') && r.status() === 202);
  await p.click('#pay');
  await delivered;
  await flushed(p);
  const rows = await rowsOf(session);
  assert.deepEqual(
    rows.map((r) => r.event_type),
    ['page.view', 'ui.click', 'ui.click'],
  );
  await p.context().close();
});

test('a rejected event is reported and dropped; beforeSend can drop an event', async () => {
  const p = await open();
  await p.evaluate(`
    sdk.track('api.response', { 'api.status_code': 9999 });
    sdk.track('signed-up', { metadata: { plan: 'pro' } });
    sdk.track('custom', { 'event.name': 'private', metadata: { drop: true } });`);
  await flushed(p);
  const rejected = (await p.evaluate('window.rejected')) as { error: string; event: Record<string, unknown> }[];
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0]!.error, 'api.status_code: must be an integer from 100 to 599');
  const requests: string[] = [];
  p.on('request', (r) => {
    if (r.url().endsWith('/v1/events')) requests.push(r.postData() ?? '');
  });
  await p.click('#pay');
  await flushed(p);
  assert.equal(requests.length, 1);
  assert.ok(!requests[0]!.includes('9999'), 'the rejected event is not sent again');
  const rows = await rowsOf(await sessionOf(p));
  assert.deepEqual(
    rows.map((r) => `${r.event_type}${r.body['event.name'] ? ` ${r.body['event.name']}` : ''}`),
    ['page.view', 'custom signed-up', 'ui.click'],
  );
  await p.context().close();
});

test('an event JSON cannot hold is reported at once and blocks nothing; a queued event is a copy the app can no longer change', async () => {
  const p = await open();
  await p.evaluate(`
    sdk.track('custom', { 'event.name': 'big', metadata: { n: 10n } });
    const loop = { name: 'loop' }; loop.self = loop;
    sdk.track('custom', { 'event.name': 'cycle', metadata: loop });
    const plan = { plan: 'pro' };
    sdk.track('signed-up', { metadata: plan });
    plan.plan = 'changed after track';`);
  const rejected = (await p.evaluate(`window.rejected.map((r) => [r.event['event.name'], r.error])`)) as [
    string,
    string,
  ][];
  assert.deepEqual(
    rejected.map(([name]) => name),
    ['big', 'cycle'],
    'reported when tracked, before any send',
  );
  assert.match(rejected[0]![1], /^event: cannot be sent as JSON \(.*BigInt/);
  assert.match(rejected[1]![1], /^event: cannot be sent as JSON \(.*circular/);
  await flushed(p);
  const rows = await rowsOf(await sessionOf(p));
  assert.deepEqual(
    rows.map((r) => `${r.event_type}${r.body['event.name'] ? ` ${r.body['event.name']}` : ''}`),
    ['page.view', 'custom signed-up'],
  );
  assert.deepEqual(rows[1]!.body.metadata, { plan: 'pro' });
  // And after a reload the stored queue holds nothing that cannot be sent.
  await p.click('#pay');
  await p.reload();
  await p.waitForFunction('window.ready === true');
  await flushed(p);
  assert.deepEqual(await p.evaluate('window.rejected'), []);
  assert.ok((await rowsOf(await sessionOf(p))).some((r) => r.event_type === 'ui.click'));
  await p.context().close();
});

test('an error with a huge message is still reported, its message cut', async () => {
  const p = await open();
  await p.evaluate(
    `addEventListener('error', () => { window.errorSeen = true; }); setTimeout(() => { throw new SyntaxError('Unexpected token in ' + 'x'.repeat(200000)); })`,
  );
  await p.waitForFunction('window.errorSeen === true');
  await flushed(p);
  assert.deepEqual(await p.evaluate('window.rejected.map((r) => r.error)'), []);
  const error = (await rowsOf(await sessionOf(p))).find((r) => r.event_type === 'error');
  assert.ok(error, 'the error event was stored');
  assert.equal(error.body['error.type'], 'SyntaxError');
  assert.equal(String(error.body['error.message']).length, 1000);
  assert.match(String(error.body['error.message']), /^Unexpected token in x+$/);
  await p.context().close();
});

test('a label cut at its limit in the middle of an emoji is still stored', async () => {
  const p = await open();
  // 254 letters and an emoji (two UTF-16 units): the 255-unit limit falls between its halves.
  await p.evaluate(
    `const b = document.createElement('button'); b.id = 'emoji'; b.textContent = 'a'.repeat(254) + '\u{1F600} more'; document.body.append(b)`,
  );
  await p.click('#emoji');
  await flushed(p);
  assert.deepEqual(await p.evaluate('window.rejected.map((r) => r.error)'), []);
  const click = (await rowsOf(await sessionOf(p))).find((r) => r.body['ui.element'] === 'button#emoji');
  assert.ok(click, 'the click was stored');
  assert.equal(click.body['ui.element.text'], 'a'.repeat(254));
  await p.context().close();
});

test('identify and journeyStep given numbers (code without types) send them as text, not events the service refuses', async () => {
  const p = await open();
  await p.evaluate(
    `sdk.identify(42); sdk.track('signed-in'); sdk.journeyStep({ journeyId: 7, stepId: 1, stepName: 'ask' })`,
  );
  await flushed(p);
  assert.deepEqual(await p.evaluate('window.rejected.map((r) => r.error)'), []);
  const rows = (await rowsOf(await sessionOf(p))).filter((r) => r.event_type !== 'page.view');
  assert.deepEqual(
    rows.map((r) => [r.event_type, r.body['user.id']]),
    [
      ['custom', '42'],
      ['journey.step', '42'],
    ],
  );
  assert.equal(rows[1]!.body['gen_ai.journey.id'], '7');
  assert.equal(rows[1]!.body['gen_ai.journey.step.id'], '1');
  await p.evaluate('sdk.identify(undefined)');
  await p.context().close();
});

test("an error thrown by a script inline in the page keeps the page's query string out of its stack and source", async () => {
  siteOptions = { flushIntervalMs: 60_000 };
  const p = await (await browser.newContext()).newPage();
  p.on('pageerror', () => {});
  await p.goto(`${siteOrigin}/app?token=reset-SECRET#frag-SECRET`);
  await p.waitForFunction('window.ready === true');
  await p.evaluate(`addEventListener('error', () => { window.errorSeen = true; }); setTimeout(boomInline)`);
  await p.waitForFunction('window.errorSeen === true');
  await flushed(p);
  const error = (await rowsOf(await sessionOf(p))).find((r) => r.event_type === 'error');
  assert.ok(error, 'the error event was stored');
  assert.ok(!JSON.stringify(error.body).includes('SECRET'), JSON.stringify(error.body));
  assert.equal((error.body.metadata as { source: string }).source, `${siteOrigin}/app`);
  assert.match(
    String(error.body['error.stack']),
    new RegExp(`at boomInline \\(${siteOrigin.replace(/\./g, '\\.')}/app:\\d+:\\d+\\)`),
  );
  await p.context().close();
});

test('page.referrer is the previous page without its query string or fragment', async () => {
  siteOptions = { flushIntervalMs: 60_000 };
  const p = await (await browser.newContext()).newPage();
  await p.goto(`${siteOrigin}/other?token=reset-SECRET#frag-SECRET`);
  await p.evaluate(`location.href = '/app'`);
  await p.waitForURL(`${siteOrigin}/app`);
  await p.waitForFunction('window.ready === true');
  assert.match(
    String(await p.evaluate('document.referrer')),
    /token=reset-SECRET/,
    'the browser gives the page the whole address',
  );
  await flushed(p);
  const view = (await rowsOf(await sessionOf(p))).find((r) => r.event_type === 'page.view')!;
  assert.equal(view.body['page.referrer'], `${siteOrigin}/other`);
  await p.context().close();
});

test('web vitals, when enabled, arrive as performance events from the second module', async () => {
  const p = await open({ capture: { webVitals: true } });
  await p.waitForFunction(`window.seen.includes('performance')`);
  await flushed(p);
  const rows = (await rowsOf(await sessionOf(p))).filter((r) => r.event_type === 'performance');
  assert.ok(rows.length >= 1);
  assert.ok(['TTFB', 'FCP', 'LCP', 'CLS', 'INP'].includes(String(rows[0]!.body['event.name'])));
  assert.equal(typeof rows[0]!.body['performance.value'], 'number');
  assert.match(String(rows[0]!.body['performance.rating']), /^(good|needs-improvement|poor)$/);
  await p.context().close();
});

/** Events the SDK keeps in IndexedDB (call once the SDK has opened its database). */
const storedEvents = (p: Page) =>
  p.evaluate(`new Promise((resolve) => {
  const open = indexedDB.open('ingest-sdk-shop');
  open.onsuccess = () => { const c = open.result.transaction('events').objectStore('events').count(); c.onsuccess = () => { open.result.close(); resolve(c.result); }; };
})`) as Promise<number>;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('opted out: nothing is captured, sent or stored, the queue is emptied, across a reload; opting in resumes with a view of the page', async () => {
  const p = await open({ flushIntervalMs: 100 });
  const posts = posted.get(p)!;
  const firstSession = await sessionOf(p);
  await flushed(p);
  // Queued while offline, so in memory and IndexedDB when the visitor opts out.
  await p.context().setOffline(true);
  await p.click('#pay');
  await flushed(p);
  assert.equal(await storedEvents(p), 1);
  await p.evaluate('sdk.optOut()');
  assert.equal(await p.evaluate('sdk.hasOptedOut()'), true);
  assert.equal(await p.evaluate(`localStorage.getItem('ingest.consent.shop')`), 'out');
  assert.equal(await p.evaluate(`sessionStorage.getItem('ingest.session.shop')`), null);
  await p.context().setOffline(false);
  posts.length = 0;
  const seen = (await p.evaluate('window.seen.length')) as number;
  await p.click('#pay');
  await p.evaluate(
    `sdk.track('signed-up'); sdk.identify('user-1'); history.pushState({}, '', '/app/next'); fetch('/api/items', { method: 'POST' })`,
  );
  await pause(400);
  await flushed(p);
  assert.equal(await p.evaluate('window.seen.length'), seen, 'beforeSend saw nothing: nothing was captured');
  assert.equal(await storedEvents(p), 0);

  await p.reload();
  await p.waitForFunction('window.ready === true');
  await pause(400);
  await flushed(p);
  assert.deepEqual(posts, [], 'nothing reached the service while opted out');
  assert.equal(await p.evaluate('sdk.hasOptedOut()'), true);
  assert.equal(await p.evaluate(`sessionStorage.getItem('ingest.session.shop')`), null);
  assert.equal(await storedEvents(p), 0);
  assert.deepEqual(
    (await rowsOf(firstSession)).map((r) => r.event_type),
    ['page.view'],
    'the click queued before the opt-out was never sent',
  );

  await p.evaluate('sdk.optIn()');
  assert.equal(await p.evaluate('sdk.hasOptedOut()'), false);
  await p.click('#pay');
  await flushed(p);
  const session = await sessionOf(p);
  assert.notEqual(session, firstSession);
  const rows = await rowsOf(session);
  assert.deepEqual(
    rows.map((r) => r.event_type),
    ['page.view', 'ui.click'],
  );
  assert.equal(rows[0]!.body['page.path'], '/app/next');
  assert.equal(rows[1]!.body['event.sequence'], 2);
  await p.context().close();
});

test('requireConsent: nothing is sent or stored before optIn; the choice is remembered on the next page load', async () => {
  const p = await open({ requireConsent: true, flushIntervalMs: 100 });
  const posts = posted.get(p)!;
  assert.equal(await p.evaluate('sdk.hasOptedOut()'), true);
  await p.click('#pay');
  await pause(400);
  await flushed(p);
  assert.deepEqual(posts, []);
  assert.equal(await p.evaluate(`sessionStorage.getItem('ingest.session.shop')`), null);
  assert.equal(
    await p.evaluate(`localStorage.getItem('ingest.consent.shop')`),
    null,
    'no choice is stored until one is made',
  );
  assert.equal(await storedEvents(p), 0);

  await p.evaluate('sdk.optIn()');
  await flushed(p);
  const session = await sessionOf(p);
  assert.deepEqual(
    (await rowsOf(session)).map((r) => r.event_type),
    ['page.view'],
  );
  await p.reload();
  await p.waitForFunction('window.ready === true');
  await flushed(p);
  const types = (await rowsOf(session)).map((r) => r.event_type);
  assert.deepEqual(
    types,
    ['page.view', 'page.leave', 'page.view'],
    'the load after consent is captured without asking again',
  );
  await p.context().close();
});

test('a page whose tracing library adds traceparent, tracestate, baggage and sentry-trace to every request still delivers its events', async () => {
  // What OpenTelemetry's fetch instrumentation (propagateTraceHeaderCorsUrls) and Sentry's tracing do to a cross-origin fetch.
  const tracing = `{ const original = window.fetch; window.fetch = function (input, init = {}) {
    const headers = new Headers(init.headers);
    headers.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    headers.set('tracestate', 'congo=t61rcWkgMzE');
    headers.set('baggage', 'sentry-environment=production');
    headers.set('sentry-trace', '0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1');
    return original.call(this, input, { ...init, headers });
  }; }`;
  const p = await open({}, tracing);
  const traced = p.waitForRequest(
    (r) => r.method() === 'POST' && r.url().endsWith('/v1/events') && r.headers().traceparent !== undefined,
  );
  await p.click('#pay');
  await flushed(p);
  assert.equal((await traced).headers()['sentry-trace'], '0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1');
  assert.deepEqual(
    (await rowsOf(await sessionOf(p))).map((r) => r.event_type),
    ['page.view', 'ui.click'],
  );
  await p.context().close();
});
