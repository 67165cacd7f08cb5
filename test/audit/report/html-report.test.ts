import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../../src/kit/browser.ts';
import { applyIgnoreRules } from '../../../src/audit/ignore/apply.ts';
import { renderHtmlReport } from '../../../src/audit/report/render.ts';
import { escapeHtml, safeHref } from '../../../src/audit/report/escape.ts';
import type { AuditResult } from '../../../src/audit/result/types.ts';
import { sampleLlm, sampleResult } from '../fixtures/sample-result.ts';

let browser: Browser;
let server: Server;
let base = '';
const reports = new Map<string, string>();

before(async () => {
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  server = createServer((req, res) => {
    const body = reports.get(req.url ?? '');
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Opens a rendered report as a reader's browser would; records every request the page makes beyond the report itself. */
async function open(
  result: AuditResult,
  options: { colorScheme?: 'light' | 'dark'; javaScriptEnabled?: boolean; width?: number } = {},
): Promise<{ page: Page; requests: string[]; close: () => Promise<void> }> {
  const path = `/report-${reports.size}.html`;
  reports.set(path, renderHtmlReport(result));
  // bypassCSP lets the test inject axe-core; the report's own policy refuses every script.
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    bypassCSP: true,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    ...(options.width ? { viewport: { width: options.width, height: 800 } } : {}),
  });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== base + path) requests.push(r.url());
  });
  await page.goto(base + path);
  return { page, requests, close: () => context.close() };
}

const WCAG22AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'];

async function axeViolations(page: Page): Promise<{ id: string; nodes: string[] }[]> {
  await page.addScriptTag({ content: axe.source });
  // A string, evaluated in the page: the test's TypeScript has no DOM types.
  const violations =
    (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG22AA)} }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => JSON.stringify(n.target)) })))`)) as {
      id: string;
      nodes: string[];
    }[];
  return violations;
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`a realistic report has no axe violations at WCAG 2.2 AA and best practice (${colorScheme} scheme)`, async () => {
    // With the team's ignore rules, one in force and one expired: the section and badges they add are checked too.
    const result = applyIgnoreRules(
      sampleResult({ pages: 4, failedPage: true, llm: sampleLlm() }),
      [
        { rule: 'image-alt', url: '/', reason: 'Hero image alt text ships with SHOP-12', expires: '2099-06-30' },
        { rule: 'color-contrast', selector: 'footer a.legal', reason: 'Brand colour', expires: '2024-01-31' },
      ],
      new Date('2025-01-01T00:00:00Z'),
    );
    const { page, requests, close } = await open(result, { colorScheme });
    try {
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(requests, [], 'the report loads nothing from outside');
    } finally {
      await close();
    }
  });
}

test('a clean report and one whose LLM review failed have no violations either', async () => {
  const failedLlm = {
    provider: 'openai' as const,
    model: 'gpt-test',
    status: 'failed' as const,
    error: 'the provider answered 529 (overloaded) three times',
    findings: [],
  };
  for (const result of [sampleResult({ clean: true }), sampleResult({ llm: failedLlm })]) {
    const { page, close } = await open(result, { colorScheme: 'dark' });
    try {
      assert.deepEqual(await axeViolations(page), []);
    } finally {
      await close();
    }
  }
});

test('reflow: at 320 CSS pixels (1280 at 400%) the page does not scroll sideways; the pages table scrolls in a region the keyboard reaches', async () => {
  const { page, close } = await open(sampleResult({ pages: 4, failedPage: true, llm: sampleLlm() }), { width: 320 });
  try {
    const [scrollWidth, innerWidth] = (await page.evaluate(
      '[document.documentElement.scrollWidth, window.innerWidth]',
    )) as [number, number];
    assert.ok(scrollWidth <= innerWidth, `the page is ${scrollWidth}px wide in a ${innerWidth}px window`);
    const region = page.getByRole('region', { name: /pages, in the order they were audited/ });
    assert.equal(await region.getAttribute('tabindex'), '0');
    assert.ok(
      await region.evaluate((el: any) => el.scrollWidth > el.clientWidth),
      'the table itself scrolls inside its region',
    );
    assert.deepEqual(await axeViolations(page), []);
  } finally {
    await close();
  }
});

test('keyboard: the first Tab reaches a visible skip link that moves focus to the report', async () => {
  const { page, close } = await open(sampleResult({ llm: sampleLlm() }), { javaScriptEnabled: false });
  try {
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate('document.activeElement && document.activeElement.textContent'),
      'Skip to the report',
    );
    const box = await page.locator('a.skip').boundingBox();
    assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'main');
    await page.keyboard.press('Tab');
    const first = await page.evaluate('document.activeElement.getAttribute("href")');
    assert.equal(first, '#sc-1-1-1', 'after the skip, Tab goes on inside the report, to what to fix first');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(outline, 'solid', 'focus is visible');
  } finally {
    await close();
  }
});

test('structure: landmarks, one h1, headings in order, criteria and pages grouped', async () => {
  const result = sampleResult({ pages: 4, llm: sampleLlm() });
  const { page, close } = await open(result, { javaScriptEnabled: false });
  try {
    for (const role of ['banner', 'navigation', 'main', 'contentinfo'] as const)
      assert.equal(await page.getByRole(role).count(), 1, role);
    const levels = await page.locator('h1, h2, h3, h4').evaluateAll((hs) => hs.map((h) => Number(h.tagName[1])));
    assert.equal(levels.filter((l) => l === 1).length, 1);
    for (let i = 1; i < levels.length; i++)
      assert.ok(levels[i]! <= levels[i - 1]! + 1, `heading level jumps from ${levels[i - 1]} to ${levels[i]}`);
    const h3 = await page.locator('section[aria-labelledby=failures] h3').allTextContents();
    assert.deepEqual(
      h3,
      [
        '1.1.1 Non-text Content (level A): 2 elements on 2 pages',
        '1.4.3 Contrast (Minimum) (level AA): 2 elements on 2 pages',
        '1.4.6 Contrast (Enhanced) (level AAA): 1 element on 1 page',
        '2.4.4 Link Purpose (In Context) (level A): 1 element on 1 page',
        '2.5.8 Target Size (Minimum) (level AA): 1 element on 1 page',
        '3.1.1 Language of Page (level A): 1 element on 1 page',
        '4.1.2 Name, Role, Value (level A): 2 elements on 2 pages',
      ].filter((t) => !t.startsWith('1.4.6')),
      'criteria in numeric order, AAA left out of an AA audit',
    );
    const item = page.locator('#sc-1-1-1 ~ ol li').first();
    assert.match((await item.textContent()) ?? '', /Critical/);
    assert.match((await item.textContent()) ?? '', /main > \.hero > img/);
    assert.equal(await item.locator('a').getAttribute('href'), result.findings[0]!.help);
    assert.equal(await page.locator('#llm ~ section .badge.llm').count(), 3, 'LLM findings are marked');
    assert.match(
      (await page.locator('#llm ~ section').first().textContent()) ?? '',
      /Confidence\s*82% \(anthropic claude-test\)/,
    );
    assert.match((await page.locator('#review ~ section').first().textContent()) ?? '', /background image/);
    assert.equal(await page.locator('#pages ~ .table-scroll table tbody tr').count(), 4);
  } finally {
    await close();
  }
});

test('hostile page content is shown as text, never as markup', async () => {
  const result = sampleResult({ llm: sampleLlm() });
  result.findings[0]!.html =
    '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=2</script>';
  result.findings[0]!.selector = '"><svg onload=alert(1)>';
  result.findings[0]!.help = 'javascript:alert(1)';
  result.pages[0]!.title = '</th></tr></table><iframe src="https://evil.example"></iframe>';
  result.url = 'https://shop.example.test/?"><script>alert(1)</script>';
  const html = renderHtmlReport(result);
  assert.ok(!html.includes('<script'), 'no script element in the markup');
  assert.ok(!/<(img|svg|iframe)\b/i.test(html), 'no element from page content');
  assert.ok(!html.includes('javascript:'), 'a javascript: URL is never a link');
  const { page, requests, close } = await open(result);
  try {
    assert.equal(await page.evaluate('document.body.dataset.pwned'), undefined);
    assert.equal(await page.locator('script, iframe, svg, img').count(), 0);
    assert.ok(
      (await page.locator('section[aria-labelledby=failures]').textContent())!.includes(
        '<script>document.body.dataset.pwned=2</script>',
      ),
      'the markup reads as text',
    );
    assert.deepEqual(requests, []);
  } finally {
    await close();
  }
});

test('the heading line says how many pages were audited and how many could not be', () => {
  const lead = (result: AuditResult) => /<p class="lead">(.*?)<\/p>/s.exec(renderHtmlReport(result))![1]!;
  const some = sampleResult({ pages: 4, failedPage: true });
  assert.match(
    lead(some),
    new RegExp(` · ${some.stats.totalPages - some.stats.failedPages} pages? audited, ${some.stats.failedPages} not · `),
  );
  assert.ok(some.stats.failedPages > 0, 'the sample has a page that could not be audited');
  const all = sampleResult({ pages: 4 });
  assert.match(lead(all), new RegExp(` · ${all.stats.totalPages} pages audited · `));
});

test('escaping helpers', () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
  );
  assert.equal(safeHref('javascript:alert(1)'), undefined);
  assert.equal(safeHref('data:text/html,x'), undefined);
  assert.equal(safeHref('not a url'), undefined);
  assert.equal(safeHref('https://a.example/?q="x"&y=<z>'), 'https://a.example/?q=%22x%22&amp;y=%3Cz%3E');
});
