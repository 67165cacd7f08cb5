import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

// The engine's bounds: the per-page time limit, the cap on waiting for a quiet network, and the number of
// synchronous audits one instance runs at once.

let h: AuditHarness;
let site: TestSite;
let release: () => void = () => {};
const released = new Promise<void>((resolve) => {
  release = resolve;
});

// Fetches something every 100 ms for as long as it is open: the network never goes quiet.
const CHATTY = page(
  'Chatty',
  `<img src="/pixel.png" id="chatty-img">
<script>setInterval(() => fetch('/tick?' + Math.random()), 100);</script>`,
);

before(async () => {
  h = await startAudit(
    {
      AUDIT_PAGE_TIMEOUT_SECONDS: '20',
      AUDIT_NETWORK_IDLE_MS: '1000',
      AUDIT_MAX_SYNC_AUDITS: '1',
      AUDIT_MAX_PAGES: '10',
    },
    'auditlimits',
  );
  site = await serveSite({
    '/': page('Home', '<a href="/never">Never</a> <a href="/fine">Fine</a>'),
    // Answers no byte until the test ends: the page can never load.
    '/never': { body: page('Never', '<p>never sent</p>'), holdUntil: new Promise(() => {}) },
    '/fine': page('Fine', '<img src="/pixel.png" id="fine-img">'),
    '/chatty': CHATTY,
    '/tick': { body: '{}', headers: { 'content-type': 'application/json' } },
    '/held': { body: page('Held', '<p>held</p>'), holdUntil: released },
    '/pixel.png': { body: '', headers: { 'content-type': 'image/png' } },
  });
});

after(async () => {
  release();
  await site?.close();
  await h?.close();
});

test('a page over the time limit is recorded failed with the limit named, and the crawl goes on', async () => {
  const res = await h.call('POST', '/audit', {
    url: `${site.origin}/`,
    crawl: { enabled: true, depth: 1, maxPages: 10 },
  });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  const byPath = Object.fromEntries(r.pages.map((p: any) => [p.url.replace(site.origin, ''), p]));
  assert.equal(byPath['/never'].status, 'failed');
  assert.match(byPath['/never'].error, /did not finish loading and auditing within 20 s/);
  assert.ok(byPath['/never'].durationMs >= 20_000, `${byPath['/never'].durationMs} ms`);
  assert.equal(byPath['/fine'].status, 'audited');
  assert.ok(r.findings.some((f: any) => f.selector === '#fine-img'));
  assert.deepEqual(
    r.pages.map((p: any) => p.url.replace(site.origin, '')),
    ['/', '/never', '/fine'],
    'pages in crawl order, the slow one where it was found',
  );
  assert.equal(r.stats.failedPages, 1);
  assert.equal(r.conformant, false);
});

test('a page whose network never goes quiet is audited once the idle wait runs out, not failed at the page limit', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/chatty` });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.equal(r.pages[0].status, 'audited');
  assert.ok(r.findings.some((f: any) => f.selector === '#chatty-img'));
});

test('beyond AUDIT_MAX_SYNC_AUDITS synchronous audits are 429 with Retry-After; the running one completes', async () => {
  const first = h.call('POST', '/audit', { url: `${site.origin}/held` });
  await site.requested('/held');
  const second = await h.call('POST', '/audit', { url: `${site.origin}/fine` });
  assert.equal(second.statusCode, 429, second.body);
  assert.equal(second.headers['retry-after'], '10');
  assert.match(second.json().error.message, /1 audits are already running here/);
  assert.ok(second.json().error.code);
  release();
  const done = await first;
  assert.equal(done.statusCode, 200, done.body);
  assert.equal(done.json().pages[0].status, 'audited');
  // The slot is free again.
  const third = await h.call('POST', '/audit', { url: `${site.origin}/fine` });
  assert.equal(third.statusCode, 200, third.body);
});
