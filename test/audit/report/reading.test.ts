import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../../src/kit/browser.ts';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from '../support.ts';

/**
 * The HTML report of a real crawl, read as its readers would read it: a site owner looking for what to fix
 * first, a developer following a finding to its element, someone on a phone or with the keyboard only. The
 * site has failures of several impacts, more elements of one rule than the cap lists, a frame, and an item
 * axe could not decide for more than one reason.
 */

let h: AuditHarness;
let site: TestSite;
let browser: Browser;
let report = '';
const CAP = 3;

before(async () => {
  h = await startAudit({ AUDIT_MAX_ELEMENTS_PER_RULE: String(CAP) }, 'auditreading');
  const images = Array.from({ length: 7 }, (_, i) => `<img src="data:," id="pic${i}">`).join('');
  site = await serveSite({
    '/': page(
      'Shop',
      `<p><a href="/gallery">Gallery</a> <a href="/framed">Framed</a></p>
<button class="buy"></button><input type="text" name="q">
<p style="color:#999;background:#fff">Low contrast</p><p style="color:#aaa;background:#fff">Lower contrast</p>`,
    ),
    '/gallery': page('Gallery', images),
    '/framed': page('Framed', '<iframe src="/inner" title="Inner"></iframe>'),
    // No heading, landmark or skip link: axe's bypass cannot decide, for three reasons at once.
    '/inner':
      '<!doctype html><html lang="en"><head><title>Inner</title></head><body><img src="data:,"><a href="/gallery"></a></body></html>',
  });
  const res = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/`,
    config: { crawl: { depth: 1, maxPages: 5 } },
  });
  assert.equal(res.statusCode, 202, res.body);
  const job = await waitForJob(h, res.json().id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  report = (await h.call('GET', `/api/v1/audits/${job.id}/report?format=html`)).body;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await h?.close();
});

async function open(
  options: { colorScheme?: 'light' | 'dark'; width?: number; javaScriptEnabled?: boolean } = {},
): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: options.width ?? 1280, height: 800 },
    bypassCSP: true,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const p = await context.newPage();
  await p.setContent(report);
  return { page: p, close: () => context.close() };
}

test('the summary says what to fix first: failing rules by impact, then by elements, counting those past the cap, each linked to its section', async () => {
  const { page: p, close } = await open({ javaScriptEnabled: false });
  try {
    const items = await p.locator('#fix-first ~ ol.priorities > li').allInnerTexts();
    const rules = items.map((t) => /\(rule (\S+)\)/.exec(t)?.[1]);
    // image-alt: 7 on /gallery (3 listed, 4 counted) and 1 in the frame; button-name and label: 1 each; then serious.
    assert.deepEqual(rules.slice(0, 3), ['image-alt', 'button-name', 'label'], items.join('\n'));
    assert.match(
      items[0]!,
      /^Critical\s*Images must have alternative text \(rule image-alt\): 8 elements on 2 pages; 1\.1\.1 Non-text Content$/,
    );
    const serious = rules.indexOf('color-contrast');
    assert.ok(serious > rules.indexOf('label'), 'serious after critical');
    assert.match(items[serious]!, /2 elements on 1 page; 1\.4\.3 Contrast \(Minimum\)/);
    for (const href of await p.locator('ol.priorities a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
      assert.equal(await p.locator(href!).count(), 1, `${href} leads to a section`);
    }
  } finally {
    await close();
  }
});

test('keyboard: a fix-first link takes the reader to its criterion, and the next Tab stays there', async () => {
  const { page: p, close } = await open({ javaScriptEnabled: false });
  try {
    let guard = 0;
    while (
      (await p.evaluate('document.activeElement && document.activeElement.textContent')) !==
      'Images must have alternative text'
    ) {
      await p.keyboard.press('Tab');
      assert.ok(++guard < 30, 'the first fix-first link is among the first Tab stops');
    }
    await p.keyboard.press('Enter');
    await p.keyboard.press('Tab');
    const inside = await p.evaluate('document.activeElement.closest("section").querySelector("h3").id');
    assert.equal(inside, 'sc-1-1-1');
  } finally {
    await close();
  }
});

test('an item needing review for several reasons shows each on its own line', async () => {
  const { page: p, close } = await open();
  try {
    const reason = p.locator('#review-2-4-1 ~ ol dt:text("Why a person must check") + dd').first();
    const lines = (await reason.innerText()).split('\n');
    assert.ok(lines.length >= 2, `one reason a line: ${JSON.stringify(lines)}`);
    assert.ok(
      lines.every((l) => l.trim().length > 0 && !/[a-z] [A-Z]\w+ does not/.test(l)),
      JSON.stringify(lines),
    );
  } finally {
    await close();
  }
});

test('at 320 CSS pixels in the dark scheme the details use the full width, nothing scrolls sideways, and axe finds nothing', async () => {
  const { page: p, close } = await open({ colorScheme: 'dark', width: 320 });
  try {
    const [scrollWidth, innerWidth] = (await p.evaluate(
      '[document.documentElement.scrollWidth, window.innerWidth]',
    )) as [number, number];
    assert.ok(scrollWidth <= innerWidth, `the page is ${scrollWidth}px wide in a ${innerWidth}px window`);
    const [dd, dl] = await p
      .locator('dl.detail')
      .first()
      .evaluate((el) => [el.querySelector('dd')!.getBoundingClientRect().width, el.getBoundingClientRect().width]);
    assert.ok(dd >= dl * 0.95, `a detail is ${dd}px wide in a ${dl}px list`);
    await p.addScriptTag({ content: axe.source });
    const violations =
      await p.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
      .then((r) => r.violations.map((v) => v.id + ' ' + v.nodes.map((n) => JSON.stringify(n.target)).join(' ')))`);
    assert.deepEqual(violations, []);
  } finally {
    await close();
  }
});

test("the cap line and the frame's elements are there for a developer to find", async () => {
  assert.match(report, /Not listed: 4 more of <code>image-alt<\/code> on this page/);
  assert.match(report, /<code>iframe &gt;&gt;&gt; img<\/code>/, "a frame's element is selected through its frame");
});
