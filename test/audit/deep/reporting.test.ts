import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from '../support.ts';

let h: AuditHarness;
let site: TestSite;
const served: Record<string, string> = {};

const TRAP = page(
  'Trap',
  `<p><a href="/help">Help</a></p><p><input id="trap" aria-label="Code"></p><p><a href="/terms">Terms</a></p>
<script>document.getElementById('trap').addEventListener('keydown', (e) => { if (e.key === 'Tab') e.preventDefault(); });</script>`,
);
// An empty heading and a skipped heading level: best practice, not WCAG failures.
const UNTIDY = page('Untidy', '<h2></h2><h4>Details</h4><p>Plain, readable text.</p>');
// Steps in a row shown in reverse: focus order is a question for a person.
const REVERSED = page(
  'Reversed',
  `<div style="display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:1em"><a href="/1">Step one</a><a href="/2">Step two</a></div><h2></h2>`,
);

before(async () => {
  h = await startAudit({}, 'auditdeepreport');
  site = await serveSite({
    '/trap': TRAP,
    '/untidy': UNTIDY,
    '/reversed': REVERSED,
    get '/report.html'() {
      return { body: served.report ?? '' };
    },
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

async function openAcr(config: Record<string, unknown>): Promise<any> {
  const created = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/trap`, config });
  assert.equal(created.statusCode, 202, created.body);
  const job = await waitForJob(h, created.json().id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  const res = await h.call('GET', `/api/v1/audits/${job.id}/openacr?format=json`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

function adherence(report: any, num: string): { level: string; notes: string } {
  for (const chapter of Object.values(report.chapters) as any[]) {
    const c = chapter.criteria.find((x: any) => x.num === num);
    if (c) return c.components[0].adherence;
  }
  throw new Error(`no ${num}`);
}

test('OpenACR maps the deep rules to their criteria: a keyboard trap does not support 2.1.2; without deep it is not evaluated', async () => {
  const deep = await openAcr({ deep: true });
  assert.equal(adherence(deep, '2.1.2').level, 'does-not-support');
  assert.match(adherence(deep, '2.1.2').notes, /keyboard-trap/);
  assert.equal(adherence(deep, '1.4.10').level, 'supports');
  assert.match(adherence(deep, '1.4.10').notes, /reflow/);
  // Focus order is only ever a question: never supported by a check.
  assert.notEqual(adherence(deep, '2.4.3').level, 'supports');
  const plain = await openAcr({});
  assert.equal(adherence(plain, '2.1.2').level, 'not-evaluated');
  assert.match(adherence(plain, '2.1.2').notes, /deep: true\) with keyboard-trap/);
});

test('best-practice rules run on request and are reported apart: findings, score and conformance are unchanged', async () => {
  const plain = (await h.call('POST', '/audit', { url: `${site.origin}/untidy` })).json();
  const res = await h.call('POST', '/audit', { url: `${site.origin}/untidy`, bestPractices: true });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  assert.equal(r.config.bestPractices, true);
  const ids = r.bestPractices.findings.map((f: any) => f.ruleId);
  assert.ok(ids.includes('empty-heading'), JSON.stringify(ids));
  assert.ok(ids.includes('heading-order'), JSON.stringify(ids));
  assert.ok(r.bestPractices.passed.includes('landmark-one-main'), JSON.stringify(r.bestPractices.passed));
  assert.deepEqual(
    r.findings.map((f: any) => f.ruleId),
    plain.findings.map((f: any) => f.ruleId),
  );
  assert.equal(r.score, plain.score);
  assert.equal(r.conformant, plain.conformant);
  assert.ok(!r.rules.some((x: any) => x.ruleId === 'empty-heading'));
  assert.equal(plain.bestPractices, undefined);
});

test('deep and bestPractices must be booleans', async () => {
  for (const body of [{ deep: 'yes' }, { bestPractices: 1 }]) {
    const res = await h.call('POST', '/audit', { url: `${site.origin}/untidy`, ...body });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error.message, /deep|bestPractices/);
  }
  const job = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/untidy`, config: { deep: 'yes' } });
  assert.equal(job.statusCode, 400, job.body);
});

test('the HTML report shows questions, passed checks and best practices, and passes a deep audit of its own', async () => {
  const created = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/reversed`,
    config: { deep: true, bestPractices: true },
  });
  const job = await waitForJob(h, created.json().id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  const html = (await h.call('GET', `/api/v1/audits/${job.id}/report?format=html`)).body;
  assert.match(html, /<dt>Question<\/dt><dd>Does the order in which Tab moves focus/);
  assert.match(html, /<dt>How to check<\/dt>/);
  assert.match(html, /<h2 id="passed">Passed checks<\/h2>/);
  assert.match(html, /<code>keyboard-trap<\/code> \(2\.1\.2\): passed on 1 page/);
  assert.match(html, /Best practices \(not counted\)[\s\S]*empty-heading/);
  served.report = html;
  const own = await h.call('POST', '/audit', { url: `${site.origin}/report.html`, deep: true, bestPractices: true });
  assert.equal(own.statusCode, 200, own.body);
  const r = own.json();
  assert.deepEqual(
    r.findings.map((f: any) => `${f.ruleId} ${f.selector}`),
    [],
  );
  assert.deepEqual(
    r.bestPractices.findings.map((f: any) => `${f.ruleId} ${f.selector}`),
    [],
  );
});

test('a deep audit keeps a small cropped screenshot of each failing element, shown in the HTML report', async () => {
  const created = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/trap`, config: { deep: true } });
  const job = await waitForJob(h, created.json().id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  const trap = job.result.findings.find((f: any) => f.ruleId === 'keyboard-trap');
  assert.ok(trap?.screenshot, JSON.stringify(job.result.findings.map((f: any) => [f.ruleId, !!f.screenshot])));
  const jpeg = Buffer.from(trap.screenshot.replace(/^data:image\/jpeg;base64,/, ''), 'base64');
  assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  assert.ok(jpeg.length <= 20_000, `${jpeg.length} bytes`);
  const html = (await h.call('GET', `/api/v1/audits/${job.id}/report?format=html`)).body;
  assert.ok(
    html.includes(`<img class="shot" src="${trap.screenshot}" alt="The element on the page, outlined in red">`),
  );
  // A plain audit takes none.
  const plain = (await h.call('POST', '/audit', { url: `${site.origin}/trap` })).json();
  assert.ok(plain.findings.every((f: any) => f.screenshot === undefined));
});
