import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from './support.ts';

/**
 * A page with more failing elements of one rule than AUDIT_MAX_ELEMENTS_PER_RULE lists the first ones and counts
 * the rest: in stats, in `omitted`, in the HTML report and in OpenACR's notes. (The speed this buys on very
 * large pages is measured in bench/audit-big-page.ts, not asserted here.)
 */

let h: AuditHarness;
let site: TestSite;
const IMAGES = 12;
const FIELDS = 3;

before(async () => {
  h = await startAudit({ AUDIT_MAX_ELEMENTS_PER_RULE: '5' }, 'auditcap');
  const images = Array.from({ length: IMAGES }, (_, i) => `<img src="data:," id="img${i}">`).join('');
  const fields = Array.from({ length: FIELDS }, (_, i) => `<input type="text" name="f${i}">`).join('');
  site = await serveSite({
    '/': page('Gallery', `${images}<form>${fields}</form>`),
    // A page with a frame is checked in parts (runPartial per frame, finishRun apart): the cap holds there too.
    '/framed': page('Framed', '<img src="data:," id="outer"><iframe src="/inner" title="More pictures"></iframe>'),
    '/inner': page('Inner', images),
  });
});

after(async () => {
  await site?.close();
  await h?.close();
});

test('elements past the per-rule cap are counted in stats and omitted, not listed', async () => {
  const res = await h.call('POST', '/audit', { url: `${site.origin}/` });
  assert.equal(res.statusCode, 200, res.body);
  const r = res.json();
  const listed = (rule: string) =>
    r.findings.filter((f: { ruleId: string }) => f.ruleId === rule).map((f: { selector: string }) => f.selector);
  assert.deepEqual(
    listed('image-alt'),
    ['#img0', '#img1', '#img2', '#img3', '#img4'],
    'the first five, in document order',
  );
  assert.equal(listed('label').length, FIELDS, 'a rule under the cap is listed whole');
  assert.deepEqual(r.omitted, [
    {
      pageUrl: `${site.origin}/`,
      ruleId: 'image-alt',
      successCriteria: ['1.1.1'],
      findings: IMAGES - 5,
      needsReview: 0,
    },
  ]);
  assert.equal(r.stats.totalFindings, IMAGES + FIELDS, 'stats count every failing element');
  assert.equal(r.stats.critical, IMAGES + FIELDS, 'image-alt and label are critical');
  assert.equal(r.pages[0].stats.findings, IMAGES + FIELDS);
  assert.equal(r.engine.maxElementsPerRule, 5);
  assert.equal(r.conformant, false);
});

test("the cap holds across frames, counting the frame's elements with the page's", async () => {
  const r = (await h.call('POST', '/audit', { url: `${site.origin}/framed` })).json();
  const listed = r.findings.filter((f: { ruleId: string }) => f.ruleId === 'image-alt');
  assert.equal(listed.length, 5);
  assert.equal(listed[0].selector, '#outer');
  assert.ok(
    listed.slice(1).every((f: { selector: string }) => f.selector.startsWith('iframe >>> #img')),
    JSON.stringify(listed.map((f: { selector: string }) => f.selector)),
  );
  assert.deepEqual(
    r.omitted.map((o: { ruleId: string; findings: number }) => [o.ruleId, o.findings]),
    [['image-alt', IMAGES + 1 - 5]],
  );
  assert.equal(r.stats.totalFindings, IMAGES + 1);
});

test('the HTML report and OpenACR say how many fail, and that the rest is not listed', async () => {
  const created = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/` });
  const job = await waitForJob(h, created.json().id, ['completed', 'failed']);
  assert.equal(job.status, 'completed', job.error);
  assert.equal(job.result.omitted.length, 1, 'the job result keeps omitted too');
  const html = (await h.call('GET', `/api/v1/audits/${job.id}/report?format=html`)).body;
  assert.match(html, /1\.1\.1 Non-text Content \(level A\): 12 elements on 1 page/);
  assert.match(
    html,
    /Not listed: 7 more of <code>image-alt<\/code> on this page, counted above \(the report lists at most 5 elements per rule and page\)/,
  );
  const failures = html.slice(html.indexOf('id="failures"'));
  assert.equal((failures.match(/\(rule <code>image-alt<\/code>\)/g) ?? []).length, 5, 'five images are described');
  assert.match(html, /image-alt<\/code>\)<\/span>: 12 elements on 1 page/, 'what to fix first counts them all');
  const acr = (await h.call('GET', `/api/v1/audits/${job.id}/openacr?format=json`)).json();
  const c111 = acr.chapters.success_criteria_level_a.criteria.find((c: { num: string }) => c.num === '1.1.1')
    .components[0].adherence;
  assert.equal(c111.level, 'does-not-support');
  assert.match(c111.notes, /found 12 failing elements on 1 of 1 audited page/);
});
