import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';
import { filterFieldEdges, hiddenTextTakingRoom } from '../support/console-browser.ts';

/**
 * Lists longer than one page of the API (at most 100 items a page) are shown whole in Chromium: a widget's saved query
 * is chosen among all of the tenant's saved queries, and the version history loads older versions down to the first.
 * The app used to ask for one page of 100 and stop there without a word.
 */
/** "Nov 27, 2026, 5:43 PM": a moment to the minute in the browser's locale (en-US here). */
const ONE_STYLE = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/;

describe('the dashboard web app: lists longer than a page', () => {
  const SAVED = 130;
  const VERSIONS = 130;
  let s: DashboardServer;
  let browser: Browser;
  let editor: SignedIn;
  let dashboardId: number;
  const pages = pageOpener(() => browser);

  before(async () => {
    s = await startDashboard('weblists');
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eve' });
    const src = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Own', slug: 'own', type: 'postgres', connectionUrl: s.database.url },
    });
    assert.equal(src.status, 201, JSON.stringify(src.body));
    for (let i = 1; i <= SAVED; i++) {
      const q = await s.request('POST', '/api/v1/queries', {
        as: editor,
        body: { name: `Query ${String(i).padStart(3, '0')}`, dataSourceId: src.body.id, query: `SELECT ${i} AS n` },
      });
      assert.equal(q.status, 201, JSON.stringify(q.body));
    }
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'long-history',
        title: 'Long history',
        definition: { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    dashboardId = created.body.id;
    let etag = (await s.request('GET', `/api/v1/dashboards/${dashboardId}`, { as: editor })).headers.etag as string;
    for (let v = 2; v <= VERSIONS; v++) {
      const put = await s.request('PUT', `/api/v1/dashboards/${dashboardId}`, {
        as: editor,
        body: { description: `Change ${v}` },
        headers: { 'if-match': etag },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      etag = put.headers.etag as string;
    }
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });
  afterEach(() => pages.closeAll());

  test(`a widget's saved query is chosen among all ${SAVED} saved queries, not the first 100`, async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    // Enabled once the sources and saved queries are known.
    await page.getByRole('button', { name: 'Add widget' }).click();
    const panel = page.getByRole('region', { name: /^Configure widget/ });
    await panel.getByLabel('Data from').selectOption({ label: 'A saved query' });
    const options = await panel.getByLabel('Saved query').locator('option').allTextContents();
    assert.equal(options.length, SAVED);
    assert.deepEqual(options.slice(-2), ['Query 129', 'Query 130']);
    await panel.getByLabel('Saved query').selectOption({ label: 'Query 130' });
    // The widget previews the last saved query's rows: it is one the widget can really use.
    await page.locator('.widget').getByText('130', { exact: true }).first().waitFor();
  });

  test(`the version history loads older versions a page at a time down to version 1 (${VERSIONS} in all)`, async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('button', { name: 'Version history' }).click();
    const history = page.getByRole('region', { name: 'Version history' });
    const rows = history.getByRole('region', { name: 'Versions' }).locator('tbody tr');
    await history.getByRole('status').filter({ hasText: '50 versions shown; more follow.' }).waitFor();
    assert.equal(await rows.count(), 50);
    // A moment is written one way across the app (app/datetime.ts), not as the browser's bare "11/27/2026, 5:43:08 PM".
    assert.match((await rows.first().locator('td').nth(2).textContent()) ?? '', ONE_STYLE);
    await assertAccessible(page, 'version history with more to load');

    const more = history.getByRole('button', { name: 'Load more versions' });
    await more.click();
    await history.getByRole('status').filter({ hasText: '100 versions shown; more follow.' }).waitFor();
    await more.click();
    await history
      .getByRole('status')
      .filter({ hasText: `All ${VERSIONS} versions shown.` })
      .waitFor();
    assert.equal(await rows.count(), VERSIONS);
    assert.equal(await more.count(), 0, 'nothing more to load');
    assert.deepEqual(
      (await rows.locator('td:first-child').allTextContents()).map(Number),
      Array.from({ length: VERSIONS }, (_, i) => VERSIONS - i),
      'every version once, newest first',
    );
    // The button went with the last page: its focus moved to the list rather than to the top of the page.
    assert.equal(
      await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')),
      'Versions',
    );
    // Restoring the first version makes a new one, and the history (read again) starts with it.
    await history.getByRole('button', { name: 'Restore version 1', exact: true }).click();
    await page.getByRole('dialog', { name: 'Restore version 1?' }).getByRole('button', { name: 'Restore' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Restored version 1 as version ${VERSIONS + 1}.` })
      .waitFor();
    await rows
      .first()
      .filter({ hasText: `${VERSIONS + 1}` })
      .waitFor();
    assert.match((await rows.first().textContent()) ?? '', /current, restored from version 1/);
  });

  test('a dashboard deleted meanwhile is said to be gone when opened again, not shown from what the page read before', async () => {
    const made = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'short-lived',
        title: 'Short lived',
        definition: { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] },
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${made.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Short lived' }).waitFor();
    await page.getByRole('link', { name: 'All dashboards' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    const gone = await s.request('DELETE', `/api/v1/dashboards/${made.body.id}`, { as: editor });
    assert.equal(gone.status, 204);
    await page.goBack();
    await page.getByRole('alert').filter({ hasText: 'This dashboard does not exist, or was deleted.' }).waitFor();
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Short lived' }).count(), 0);
  });

  test('at 320 px, light and dark: the dashboards list and a dashboard with its history reflow and pass axe', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page: Page = await pages.open(editor, { viewport: { width: 320, height: 800 }, colorScheme });
      await page.goto(`${s.url}/dashboards`);
      await page.getByRole('status').filter({ hasText: '1 dashboard.' }).waitFor();
      assert.match(
        (await page.locator('main tbody tr td').filter({ hasText: /\d{4}/ }).first().textContent()) ?? '',
        ONE_STYLE,
      );
      await assertAccessible(page, `dashboards list at 320 px, ${colorScheme}`);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 320, 'no sideways scrolling');
      // The list's caption is for screen readers: it takes no line above the table.
      assert.deepEqual(await hiddenTextTakingRoom(page), [], 'text for screen readers takes no room');
      // Search, Tag and Sort, one under another, are one column as wide as the screen (they were three widths).
      assert.deepEqual(await filterFieldEdges(page, 'main form.toolbar'), [304], 'the filters are one column');
      await screenshot(page, `lists-01-dashboards-320-${colorScheme}`);

      await page.getByRole('link', { name: 'Long history' }).click();
      // On a phone the history is behind the toolbar's More.
      await page.getByRole('button', { name: 'More', exact: true }).click();
      await page.getByRole('button', { name: 'Version history' }).click();
      const more = page.getByRole('button', { name: 'Load more versions' });
      await more.waitFor();
      await assertAccessible(page, `version history at 320 px, ${colorScheme}`);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 320, 'no sideways scrolling');
      // The end of the history's first page: the count and the button to read on.
      await more.scrollIntoViewIfNeeded();
      await screenshot(page, `lists-02-history-320-${colorScheme}`, { fullPage: false });
    }
  });
});
