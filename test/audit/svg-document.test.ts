import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from './support.ts';

let h: AuditHarness;
let site: TestSite;

// A standalone SVG document: a chart with a title, and a link into the site with no accessible name.
const CHART = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="200" viewBox="0 0 400 200">
  <title>Sales by quarter</title>
  <rect x="10" y="50" width="50" height="150" fill="#1a4fa0"/>
  <a href="/details" id="details"><rect x="100" y="20" width="50" height="180" fill="#1a4fa0"/></a>
  <text x="10" y="20" fill="#000">Q1 to Q4</text>
</svg>`;

before(async () => {
  h = await startAudit({}, 'auditsvg');
  site = await serveSite({
    '/chart.svg': { body: CHART, headers: { 'content-type': 'image/svg+xml' } },
    '/chart-utf8.svg': { body: CHART, headers: { 'content-type': 'image/svg+xml; charset=utf-8' } },
    '/data.json': { body: '{"a":1}', headers: { 'content-type': 'application/json' } },
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('an SVG document served as image/svg+xml is audited like a page, not refused with a 500', async () => {
  for (const path of ['/chart.svg', '/chart-utf8.svg']) {
    const res = await h.call('POST', '/audit', { url: `${site.origin}${path}` });
    assert.equal(res.statusCode, 200, res.body);
    const r = res.json();
    assert.equal(r.pages.length, 1);
    assert.equal(r.pages[0].status, 'audited');
    assert.equal(r.pages[0].title, 'Sales by quarter');
    assert.ok(r.rules.length > 0, 'axe ran rules on the document');
  }
});

test('an SVG document is audited as a queued job too', async () => {
  const res = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/chart.svg` });
  assert.equal(res.statusCode, 202, res.body);
  const job = await waitForJob(h, res.json().id, ['completed', 'failed']);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  assert.equal(job.result.pages[0].status, 'audited');
});

test('a document that is neither HTML nor SVG is still refused with its reason', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/data.json` });
  assert.equal(res.statusCode, 500, res.body);
  assert.match(res.json().error.message, /HTML page/);
});
