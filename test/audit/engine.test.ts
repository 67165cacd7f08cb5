import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

// One app, so one Chromium, for the whole file; the site serves every page the tests audit.
let h: AuditHarness;
let site: TestSite;
let releaseData: () => void = () => {};
const dataReady = new Promise<void>((resolve) => {
  releaseData = resolve;
});

const VIOLATIONS = page(
  'Violations',
  `
  <img src="/pixel.png" id="no-alt">
  <p style="color:#999;background:#fff">Low contrast text</p>
  <iframe id="frame" title="Embedded" src="/frame"></iframe>
  <div id="host"></div>
  <script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<button class="icon"></button>';</script>
`,
);
const FRAME = page('Frame', '<img src="/pixel.png" class="inner">');
const CLEAN = page('Clean', '<p>Plain, readable text.</p><a href="/clean-2">A link that says where it goes</a>');
// Renders its content only after a request that the server answers late: scanned too early, it would look clean.
const SPA = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title></head><body><main id="root"><h1>App</h1></main>
<script>
  setTimeout(() => fetch('/data').then((r) => r.json()).then((d) => {
    document.getElementById('root').insertAdjacentHTML('beforeend', '<img src="/pixel.png" id="late-' + d.name + '">');
  }), 100);
</script></body></html>`;
const REVIEW = page(
  'Review',
  '<p style="color:#777;background-image:linear-gradient(#fff,#eee)">Text over a gradient</p>',
);
const TARGETS = page(
  'Targets',
  '<div style="display:flex"><a href="/a" style="display:inline-block;width:10px;height:10px;overflow:hidden">a</a><a href="/b" style="display:inline-block;width:10px;height:10px;overflow:hidden">b</a></div>',
);

before(async () => {
  h = await startAudit({}, 'auditengine');
  site = await serveSite({
    '/violations': VIOLATIONS,
    '/frame': FRAME,
    '/clean': CLEAN,
    '/spa': SPA,
    '/data': { body: '{"name":"x"}', headers: { 'content-type': 'application/json' }, holdUntil: dataReady },
    '/review': REVIEW,
    '/targets': TARGETS,
    '/pixel.png': { body: '', headers: { 'content-type': 'image/png' } },
    // Go's http.NotFound, many proxies' and CDNs' error pages: an error status in plain text.
    '/plain-404': { status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain; charset=utf-8' } },
    '/plain-503': { status: 503, body: 'upstream unavailable', headers: { 'content-type': 'text/plain' } },
    // nginx's `return 404;` in a location, many APIs' error answers: a status and no body at all.
    '/empty-404': { status: 404, body: '' },
    '/empty-503': { status: 503, body: '' },
    '/to-empty-404': { status: 302, body: '', headers: { location: '/empty-404' } },
    '/links-empty': page('Links', '<a href="/to-empty-404">A page that has gone</a>'),
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('known violations are found with their criteria, levels, elements and selectors, in an iframe and an open shadow root too', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/violations`, level: 'AA', version: '2.2' });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.equal(r.url, `${site.origin}/violations`);
  assert.equal(r.wcagVersion, '2.2');
  assert.equal(r.wcagLevel, 'AA');
  assert.equal(r.conformant, false);
  const find = (ruleId: string, selector: string) =>
    r.findings.find((f: any) => f.ruleId === ruleId && f.selector === selector);

  const img = find('image-alt', '#no-alt');
  assert.ok(img, JSON.stringify(r.findings.map((f: any) => [f.ruleId, f.selector])));
  assert.deepEqual(img.successCriteria, ['1.1.1']);
  assert.equal(img.level, 'A');
  assert.equal(img.impact, 'critical');
  assert.equal(img.element, 'img');
  assert.match(img.html, /^<img src="\/pixel.png" id="no-alt">/);
  assert.match(img.help, /^https:\/\/dequeuniversity\.com\/rules\/axe\/.+\/image-alt/);
  assert.ok(img.description.length > 0 && img.fix.length > 0);

  const inFrame = r.findings.find((f: any) => f.ruleId === 'image-alt' && f.selector.startsWith('#frame >>> '));
  assert.ok(inFrame, 'the image inside the iframe is reported with the frame in its selector');
  assert.equal(inFrame.target.length, 2);
  assert.equal(inFrame.target[0], '#frame');
  assert.equal(inFrame.selector, `#frame >>> ${inFrame.target[1]}`);
  assert.match(inFrame.html, /class="inner"/);

  const inShadow = r.findings.find((f: any) => f.ruleId === 'button-name');
  assert.ok(inShadow, 'the nameless button in the open shadow root is reported');
  assert.equal(inShadow.selector, '#host >> button');
  assert.deepEqual(inShadow.target, [['#host', 'button']]);
  assert.deepEqual(inShadow.successCriteria, ['4.1.2']);
  assert.equal(inShadow.level, 'A');

  const contrast = r.findings.find((f: any) => f.ruleId === 'color-contrast');
  assert.ok(contrast);
  assert.deepEqual(contrast.successCriteria, ['1.4.3']);
  assert.equal(contrast.level, 'AA');
  assert.equal(contrast.impact, 'serious');
  assert.equal(contrast.element, 'p');

  for (const f of r.findings) assert.equal(f.pageUrl, `${site.origin}/violations`);
  assert.equal(r.stats.totalPages, 1);
  assert.equal(r.stats.totalFindings, r.findings.length);
  assert.equal(r.stats.critical + r.stats.serious + r.stats.moderate + r.stats.minor, r.findings.length);
  assert.ok(r.stats.critical >= 3);
  assert.ok(r.score > 0 && r.score < 100, `score ${r.score}`);
  assert.deepEqual(r.config.axeTags, ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa']);
  assert.equal(r.pages[0].status, 'audited');
  assert.equal(r.pages[0].title, 'Violations');
  assert.equal(r.pages[0].httpStatus, 200);
  assert.match(r.engine.axeVersion, /^4\./);
  assert.ok(r.rules.some((rule: any) => rule.ruleId === 'image-alt' && rule.failedPages === 1));
});

test('level A leaves AA criteria out: no contrast finding, and the result says A', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/violations`, level: 'a', version: '2.0' });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.equal(r.wcagLevel, 'A');
  assert.equal(r.wcagVersion, '2.0');
  assert.deepEqual(r.config.axeTags, ['wcag2a']);
  assert.ok(r.findings.some((f: any) => f.ruleId === 'image-alt'));
  assert.ok(!r.findings.some((f: any) => f.ruleId === 'color-contrast'));
  for (const f of r.findings) assert.equal(f.level, 'A');
});

test('target size (2.5.8) is checked at 2.2 AA only, not at 2.1 AA', async () => {
  const at22 = (await h.call('POST', '/audit', { url: `${site.origin}/targets`, version: '2.2', level: 'AA' })).json();
  const at21 = (await h.call('POST', '/audit', { url: `${site.origin}/targets`, version: '2.1', level: 'AA' })).json();
  assert.ok(
    at22.findings.some(
      (f: any) => f.ruleId === 'target-size' && f.successCriteria.includes('2.5.8') && f.level === 'AA',
    ),
  );
  assert.ok(!at21.findings.some((f: any) => f.ruleId === 'target-size'));
});

test('a clean page is conformant with a score of 100 and no findings', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/clean` });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.equal(r.conformant, true);
  assert.equal(r.score, 100);
  assert.deepEqual(r.findings, []);
  assert.equal(r.stats.totalFindings, 0);
  assert.equal(r.wcagVersion, '2.2', 'the default version');
  assert.equal(r.wcagLevel, 'AA', 'the default level');
  assert.ok(
    r.rules.some((rule: any) => rule.passedPages === 1),
    'rules that passed are recorded',
  );
});

test('a single-page app that renders after a late request is audited once it has rendered', async () => {
  const pending = h.call('POST', '/audit', { url: `${site.origin}/spa` });
  await site.requested('/data');
  releaseData();
  const res = await pending;
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.ok(
    r.findings.some((f: any) => f.ruleId === 'image-alt' && f.selector === '#late-x'),
    JSON.stringify(r.findings.map((f: any) => f.selector)),
  );
});

test('what axe cannot decide is a needs-review item, never a failure', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/review` });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  const item = r.needsReview.find((i: any) => i.ruleId === 'color-contrast');
  assert.ok(item, JSON.stringify(r.needsReview));
  assert.deepEqual(item.successCriteria, ['1.4.3']);
  assert.ok(item.reason.length > 0);
  assert.ok(!r.findings.some((f: any) => f.ruleId === 'color-contrast'));
  assert.equal(r.stats.needsReview, r.needsReview.length);
  assert.equal(r.conformant, true, 'needs-review items do not make a page fail');
});

test('a page that answers 404 is an audit failure (500) naming the status', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/missing` });
  assert.equal(res.statusCode, 500);
  assert.match(res.json().error.message, /HTTP 404/);
});

test('a port nobody listens on fails the audit with the network error', async () => {
  // A port taken from the system and let go (not port 9, which Chromium refuses to use at all: ERR_UNSAFE_PORT).
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const res = await h.call('POST', '/audit', { url: `http://127.0.0.1:${port}/` });
  assert.equal(res.statusCode, 500);
  assert.match(
    res.json().error.message,
    /^the audit failed: the page could not be loaded \(connection failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
  );
});

test('an error status in plain text is a failed page naming the status, not a skipped non-HTML answer', async () => {
  for (const [path, status] of [
    ['/plain-404', 404],
    ['/plain-503', 503],
  ] as const) {
    const res = await h.call('POST', '/audit', { url: `${site.origin}${path}` });
    assert.equal(res.statusCode, 500, res.body);
    assert.equal(res.json().error.message, `the audit failed: the page answered HTTP ${status}`);
  }
});

test("an error status with an empty body is the site's answer on every Chromium build, not a network failure to retry", async () => {
  // Debian's Chromium shows its own error page for one (ERR_HTTP_RESPONSE_CODE_FAILURE), a headless-shell build the answer.
  for (const [path, status] of [
    ['/empty-404', 404],
    ['/empty-503', 503],
    ['/to-empty-404', 404],
  ] as const) {
    const res = await h.call('POST', '/audit', { url: `${site.origin}${path}` });
    assert.equal(res.statusCode, 500, res.body);
    assert.equal(res.json().error.message, `the audit failed: the page answered HTTP ${status}`, path);
  }
  // A crawl's broken link: the failed page names its status and where it is, not the browser's error page.
  const crawl = await h.call('POST', '/audit', { url: `${site.origin}/links-empty`, crawl: { depth: 1, maxPages: 5 } });
  assert.equal(crawl.statusCode, 200, crawl.body);
  const broken = crawl.json().pages.find((p: { requestedUrl: string }) => p.requestedUrl.endsWith('/to-empty-404'));
  assert.deepEqual(
    { url: broken.url, status: broken.status, httpStatus: broken.httpStatus, error: broken.error },
    { url: `${site.origin}/empty-404`, status: 'failed', httpStatus: 404, error: 'the page answered HTTP 404' },
  );
});

test('/metrics counts every page visited, also the page of an audit that failed', async () => {
  const count = async (outcome: string) => {
    const text = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(new RegExp(`^audit_pages_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };
  const [audited, failed] = [await count('audited'), await count('failed')];
  assert.equal((await h.call('POST', '/audit', { url: `${site.origin}/missing` })).statusCode, 500);
  assert.equal(await count('failed'), failed + 1, 'the 404 page of a failed audit counts as a failed page');
  assert.equal((await h.call('POST', '/audit', { url: `${site.origin}/clean` })).statusCode, 200);
  assert.equal(await count('audited'), audited + 1);
});

test('a browser that dies is started again for the next audit', async () => {
  const { execFileSync } = await import('node:child_process');
  const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([pid, comm]) => pid && /chrom/i.test(comm ?? ''))
    .map(([pid]) => Number(pid));
  assert.equal(children.length, 1, 'this file runs one browser');
  process.kill(children[0]!, 'SIGKILL');
  const res = await h.call('POST', '/audit', { url: `${site.origin}/clean` });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().conformant, true);
});
