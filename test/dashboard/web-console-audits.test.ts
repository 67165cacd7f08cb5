import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { FAST_AUDITS, serveSite, type TestSite } from '../audit/support.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Audits in the console (issue 26), on identity, the dashboard and audit linked as `platform start` links them, with
 * real audits in Chromium of a page served here: the owner makes an API key for CI (shown once), the test's "CI" runs
 * two audits with it, and the owner follows the first one's progress in Runs without reloading, sees one URL's trend,
 * opens a report grouped by success criterion, downloads its JSON, compares the two runs and revokes the key. The
 * audited page's title, address and failing elements are built to run in the console: they stay text.
 */
const HOSTILE_TITLE = '<img src=x onerror=window.__pwned=3><script>window.__pwned=4</script>';
const HOSTILE_PATH = '/shop"><img src=x onerror=window.__pwned=5>';
const LOGO = '<img src="x" onerror="window.__pwned=6" id="logo">';
const BODY = (
  fixed: boolean,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${HOSTILE_TITLE}</title></head>
<body><main><h1>Shop</h1>
${fixed ? '<img src="x" alt="Shop" id="logo">' : LOGO}
<a id="run" href="javascript:window.__pwned=7"><script>window.__pwned=8</script></a>
<svg id="art" role="img" onload="window.__pwned=9" width="20" height="20"><circle r="5" cx="10" cy="10"></circle></svg>
${fixed ? '<button id="buy" style="width:48px;height:48px"></button>' : ''}
</main></body></html>`;

describe('the console: audits', () => {
  let h: ConsoleHarness;
  let site: TestSite;
  const pages: Record<string, { body: string; holdUntil?: Promise<unknown> }> = {};
  let release!: () => void;
  let pathKey: string;
  let target: string;

  before(async () => {
    h = await startConsole('webconaudits', { services: ['audit'], env: { ...FAST_AUDITS, AUDIT_CONCURRENCY: '1' } });
    site = await serveSite(pages);
    const url = new URL(HOSTILE_PATH, site.origin);
    pathKey = url.pathname;
    target = url.href;
    pages[pathKey] = { body: BODY(false), holdUntil: new Promise<void>((r) => (release = r)) };
  });
  after(async () => {
    await site?.close();
    await h?.close();
  });

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const nav = (page: Page, name: string) => openFromNav(page, name);
  const auditApi = (path: string, key: string, body?: unknown) =>
    fetch(`${h.platform.url.audit}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  test('the console allows no inline script', async () => {
    const index = await fetch(`${h.platform.url.dashboard}/audits/runs`);
    const policy = index.headers.get('content-security-policy') ?? '';
    const script = policy.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
    assert.equal(script.trim(), "script-src 'self'");
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/, 'no directive lets inline script or eval through');
    assert.match(policy, /object-src 'none'/);
  });

  test('key for CI, runs with progress, trend, report, JSON, comparison, revocation: nothing from the site runs', async () => {
    const page = await h.open();
    await h.signIn(page);

    // A key for CI, shown once.
    await nav(page, 'API keys');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await statusSays(page, 'You have no API key yet.');
    await page.getByLabel('Name').fill('Shop CI');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'New key Shop CI' }).waitFor();
    const key = ((await page.locator('.secret-value').textContent()) ?? '').trim();
    assert.match(key, /^ak_/);
    await statusSays(page, '1 key.');
    await assertAccessible(page, 'API keys with a new key');
    await h.screenshot(page, 'audits-keys-01-created');

    // CI runs the first audit with it; the page it audits answers only when released, so the run is seen running.
    const first = await auditApi('/audits', key, { url: target });
    const firstBody = await first.text();
    assert.equal(first.status, 202, firstBody);
    const firstId = (JSON.parse(firstBody) as { id: string }).id;
    await nav(page, 'Runs');
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    const table = page.getByRole('table', { name: 'Runs, newest first' });
    await site.requested(pathKey);
    await table.getByRole('cell', { name: /^Running/ }).waitFor();
    await h.screenshot(page, 'audits-runs-01-running');
    release();
    await statusSays(page, /^The audit of .* completed: score \d+\.$/);
    const row = table.getByRole('row').nth(1);
    assert.match((await row.textContent()) ?? '', /Completed/);
    assert.match((await row.textContent()) ?? '', /1 critical|serious/);
    assert.ok(((await row.textContent()) ?? '').includes(HOSTILE_TITLE), "the page's title is shown as the text it is");
    await h.assertNothingRan(page);

    // The second run, after the logo was fixed and a nameless button added.
    pages[pathKey] = { body: BODY(true) };
    const second = await auditApi('/audits', key, { url: target });
    assert.equal(second.status, 202);
    const secondId = ((await second.json()) as { id: string }).id;
    await page.getByRole('button', { name: 'Refresh' }).click();
    await table.getByRole('row').nth(2).waitFor();
    await statusSays(page, '2 runs.');
    await table.getByRole('cell', { name: /^(Running|Waiting)/ }).waitFor({ state: 'detached' });
    assert.match((await table.getByRole('row').nth(1).textContent()) ?? '', /Completed/);
    await assertAccessible(page, 'runs');

    // One URL: its runs and their trend, drawn and in a table.
    await page
      .getByRole('button', { name: `Only runs of ${target}` })
      .first()
      .click();
    await page.getByRole('table', { name: 'Runs of this URL, newest first' }).waitFor();
    assert.ok(page.url().endsWith(`?url=${encodeURIComponent(target)}`), page.url());
    await page.getByRole('heading', { level: 2, name: 'Over time' }).waitFor();
    const trend = page.getByRole('table', { name: 'Score and failures by run, oldest first' });
    assert.equal(await trend.locator('tbody tr').count(), 2);
    await page.locator('.chart[data-drawn]').nth(1).waitFor();
    assert.equal(await page.getByRole('img', { name: /^Score of 2 completed runs, latest \d+/ }).count(), 1);
    await assertAccessible(page, 'runs of one URL');
    await h.screenshot(page, 'audits-runs-02-trend');
    // The filters line up: the URL's hint hangs below its field without lifting it above Status, and the select is as
    // tall as the text field and the buttons beside it.
    const boxes = await Promise.all(
      [
        page.getByLabel('URL', { exact: true }),
        page.getByLabel('Status'),
        page.getByRole('button', { name: 'Show runs' }),
      ].map((l) => l.boundingBox()),
    );
    assert.deepEqual(
      boxes.map((b) => [Math.round(b?.y ?? -1), Math.round(b?.height ?? -1)]),
      Array(3).fill([Math.round(boxes[0]?.y ?? -1), Math.round(boxes[0]?.height ?? -1)]),
      'URL, Status and Show runs level and as tall',
    );
    // The impact chart's legend is text under its canvas, each line's colour and shape beside its impact: at 320 px
    // ECharts' own legend wrapped onto the time axis' labels.
    const impacts = page.getByRole('figure', { name: 'Failures by impact' });
    const legend = impacts.getByRole('list', { name: 'Legend' });
    for (const width of [1280, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await impacts.locator('.chart[data-drawn]').waitFor();
      assert.deepEqual(await legend.getByRole('listitem').allTextContents(), [
        'Critical',
        'Serious',
        'Moderate',
        'Minor',
      ]);
      const [chart, key] = await Promise.all([impacts.getByRole('img').boundingBox(), legend.boundingBox()]);
      assert.ok(chart && key && key.y >= chart.y + chart.height, `at ${width} px the legend is under the chart`);
      assert.ok(key.x + key.width <= width, `at ${width} px the legend is within the screen`);
    }
    await h.checkNarrow(page, 'runs of one URL', 'audits-runs-03');
    await h.assertNothingRan(page);

    // The newest run's report.
    await page
      .getByRole('table', { name: 'Runs of this URL, newest first' })
      .getByRole('rowheader')
      .first()
      .getByRole('link')
      .click();
    await page.getByRole('heading', { level: 1, name: 'Audit report' }).waitFor();
    assert.ok(page.url().endsWith(`/audits/runs/${secondId}`));
    await page.getByRole('heading', { level: 2, name: 'Failures by success criterion' }).waitFor();
    await page.getByRole('heading', { level: 3, name: /^4\.1\.2 Name, Role, Value/ }).waitFor();
    const markup = await page.locator('.finding pre').allTextContents();
    assert.ok(
      markup.some((m) => m.includes('href="javascript:window.__pwned=7"') && m.includes('<script>')),
      `the link's markup is shown as text: ${markup.join(' | ')}`,
    );
    assert.ok(
      markup.some((m) => m.includes('onload="window.__pwned=9"')),
      'the SVG markup too',
    );
    assert.ok(((await page.locator('.facts').first().textContent()) ?? '').includes(HOSTILE_TITLE));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download JSON' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `audit-${secondId}.json`);
    const json = JSON.parse(await readFile((await download.path())!, 'utf8'));
    assert.equal(json.url, target);
    assert.ok(json.findings.length > 0);
    await statusSays(page, 'The JSON is downloaded.');
    const [acr] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download OpenACR' }).click(),
    ]);
    assert.equal(acr.suggestedFilename(), `audit-${secondId}.openacr.yaml`);
    assert.match(await readFile((await acr.path())!, 'utf8'), /^catalog: /m);
    // Each finding's impact is a badge: its word, on a tint of its colour (axe checks the contrast, light and dark).
    const badges = page.locator('.finding .impact .impact-badge');
    assert.ok((await badges.count()) > 0, 'a badge per finding');
    for (const word of await badges.allTextContents()) assert.match(word, /^(Critical|Serious|Moderate|Minor)$/);
    const tint = await badges.first().evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.notEqual(tint, 'rgba(0, 0, 0, 0)', 'the badge is tinted');
    await assertAccessible(page, 'report');
    await h.screenshot(page, 'audits-report-01');
    await h.checkNarrow(page, 'report', 'audits-report-02');
    await h.assertNothingRan(page);

    // Compared with the first run.
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Compare runs' }).waitFor();
    assert.ok(page.url().endsWith(`/audits/runs/${secondId}/compare/${firstId}`));
    await statusSays(page, /^\d+ new failures?, 1 fixed, 2 remaining\.$/);
    const added = await page
      .getByRole('region', { name: /^New failures/ })
      .locator('pre')
      .allTextContents();
    assert.ok(
      added.some((m) => m.includes('id="buy"')),
      `the nameless button is new: ${added.join(' | ')}`,
    );
    const fixed = await page
      .getByRole('region', { name: /^Fixed/ })
      .locator('pre')
      .allTextContents();
    assert.deepEqual(
      fixed.map((m) => m.includes('id="logo"')),
      [true],
    );
    await assertAccessible(page, 'comparison');
    await h.screenshot(page, 'audits-compare-01');
    await h.checkNarrow(page, 'comparison', 'audits-compare-02');
    await h.assertNothingRan(page);

    // Runs that cannot be compared, or are not there: the service's reason, said.
    await page.goto(`${h.platform.url.dashboard}/audits/runs/${secondId}/compare/no-such-run`);
    await page.getByRole('alert').filter({ hasText: 'no audit no-such-run' }).waitFor();
    await assertAccessible(page, 'a comparison that cannot be made');

    // A crawl's progress, page by page of at most its maxPages, while its second page is held.
    let releaseSecond!: () => void;
    pages['/crawl'] = { body: BODY(true).replace('</main>', '<a href="/crawl-b">More</a></main>') };
    pages['/crawl-b'] = { body: BODY(true), holdUntil: new Promise<void>((r) => (releaseSecond = r)) };
    const crawl = await auditApi('/audits', key, {
      url: `${site.origin}/crawl`,
      config: { crawl: { depth: 1, maxPages: 3 } },
    });
    assert.equal(crawl.status, 202);
    await nav(page, 'Runs');
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    const runs = page.getByRole('table', { name: 'Runs, newest first' });
    await runs.getByRole('cell', { name: /^Running 1 of at most 3 pages/ }).waitFor();
    const bar = runs.getByRole('progressbar');
    assert.deepEqual([await bar.getAttribute('value'), await bar.getAttribute('max')], ['1', '3']);
    await h.screenshot(page, 'audits-runs-04-crawl-progress');
    releaseSecond();
    await statusSays(page, `The audit of ${site.origin}/crawl completed`);
    await h.assertNothingRan(page);

    // The key revoked: CI is refused from then on.
    await nav(page, 'API keys');
    await page.getByRole('button', { name: 'Revoke Shop CI' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Shop CI?' });
    await assertAccessible(page, 'revoke dialog');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await statusSays(page, 'The key Shop CI is revoked: it no longer works.');
    await page.getByRole('cell', { name: /^Revoked / }).waitFor();
    assert.equal((await auditApi('/audits', key)).status, 401);
    assert.equal(await page.locator('.secret-value').count(), 0, 'the key is not shown again');
    await h.checkNarrow(page, 'API keys', 'audits-keys-02');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: a key made and revoked, the runs table and a report reached without a mouse', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/audits/keys`);
    await statusSays(page, '1 key.');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Name$|^$/);
    await page.keyboard.type('Keyboard');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New key Keyboard' }).waitFor();
    assert.equal((await focused(page)).label, 'New key Keyboard', 'the new key is announced');
    await tabTo(page, /^Revoke Keyboard$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).label, 'Revoke');
    await page.keyboard.press('Enter');
    await statusSays(page, 'The key Keyboard is revoked: it no longer works.');

    await page.goto(`${h.platform.url.dashboard}/audits/runs`);
    await statusSays(page, '3 runs.');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Runs$/);
    assert.equal((await focused(page)).tag, 'section', 'the wide table scrolls from the keyboard');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).tag, 'a', "the first run's report link");
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Audit report' }).waitFor();
    await tabTo(page, /^Download HTML report$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const html = await readFile((await download.path())!, 'utf8');
    assert.match(html, /^<!doctype html>/i);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
