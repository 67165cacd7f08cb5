import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener } from './web/browser.ts';

// Functions passed to page.evaluate run in the page; the test's TypeScript has no DOM types.
declare const document: any;

const definition = { layout: { type: 'grid', columns: 12, rowHeight: 40 }, dataSources: [], widgets: [] };

/** Issue 28 in Chromium: tags edited in a dashboard's settings, the list's tag filter and favourite stars, by keyboard. */
describe('the dashboard web app: tags and favourites', () => {
  let s: DashboardServer;
  let browser: Browser;
  let editor: SignedIn;
  let salesId: number;
  const pages = pageOpener(() => browser);

  before(async () => {
    s = await startDashboard('webtags');
    editor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Eve' });
    for (const [slug, title, tags] of [
      ['sales', 'Sales', []],
      ['ops', 'Ops board', ['Ops']],
    ] as const) {
      const r = await s.request('POST', '/api/v1/dashboards', {
        as: editor,
        body: { slug, title, tags, definition },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      if (slug === 'sales') salesId = r.body.id;
    }
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });
  afterEach(() => pages.closeAll());

  /** Moves the keyboard focus to the control (as Tab would arrive there) and presses a key on it. */
  const press = async (page: Page, name: string | RegExp, key: string, role: 'button' | 'checkbox' = 'button') => {
    const control = page.getByRole(role, { name, exact: typeof name === 'string' });
    await control.focus();
    await page.keyboard.press(key);
  };
  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

  test("tags are added and removed as chips in the dashboard's settings and saved", async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${salesId}?edit=1`);
    await press(page, 'Settings', 'Enter');
    const field = page.getByLabel('New tag');
    await field.focus();
    for (const tag of ['  EU ', 'Temp', 'Sales']) {
      await page.keyboard.type(tag);
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type('eu');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: '"eu" is already a tag.' }).waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await press(page, 'Remove tag Temp', 'Enter');
    assert.deepEqual(
      await page.getByRole('list', { name: 'Tags of this dashboard' }).getByRole('listitem').allInnerTexts(),
      ['EU\n×', 'Sales\n×'],
    );
    await assertAccessible(page, 'dashboard settings with tags');
    await page.screenshot({ path: '/tmp/i28-layout-settings-tags.png', fullPage: true });
    await press(page, 'Save', 'Enter');
    await status(page, 'Saved as version 2.');
    const saved = await s.request('GET', `/api/v1/dashboards/${salesId}`, { as: editor });
    assert.deepEqual(saved.body.tags, ['EU', 'Sales']);
  });

  test('the list filters by tag and marks favourites with a star toggle; light, dark and 320 px', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards`);
    await status(page, '2 dashboards.');
    await page.getByLabel('Tag', { exact: true }).focus();
    await page.keyboard.type('ops');
    await page.keyboard.press('Enter');
    await status(page, '1 dashboard tagged "ops".');
    assert.deepEqual(await page.getByRole('table').getByRole('link').allInnerTexts(), ['Ops board']);
    await page.getByLabel('Tag', { exact: true }).fill('');
    await page.keyboard.press('Enter');
    await status(page, '2 dashboards.');

    const star = page.getByRole('button', { name: 'Favourite: Ops board', exact: true });
    assert.equal(await star.getAttribute('aria-pressed'), 'false');
    await press(page, 'Favourite: Ops board', 'Space');
    await status(page, 'Added "Ops board" to your favourites.');
    await page.waitForFunction(
      () =>
        document.querySelector('button[aria-label="Favourite: Ops board"]')?.getAttribute('aria-pressed') === 'true',
    );
    assert.equal(await star.evaluate((e: any) => e === document.activeElement), true, 'the focus stays on the star');
    await press(page, 'Favourites only', 'Space', 'checkbox');
    await status(page, '1 dashboard among your favourites.');
    assert.deepEqual(await page.getByRole('table').getByRole('link').allInnerTexts(), ['Ops board']);
    const mine = await s.request('GET', '/api/v1/dashboards?favourites=true', { as: editor });
    assert.deepEqual(
      mine.body.data.map((d: { title: string }) => d.title),
      ['Ops board'],
    );
    await press(page, 'Favourites only', 'Space', 'checkbox');
    await status(page, '2 dashboards.');
    await assertAccessible(page, 'dashboards list, light');
    await page.screenshot({ path: '/tmp/i28-layout-list-light.png', fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'dashboards list, dark');
    await page.screenshot({ path: '/tmp/i28-layout-list-dark.png', fullPage: true });
    await page.setViewportSize({ width: 320, height: 700 });
    await assertAccessible(page, 'dashboards list, 320 px');
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= 320),
      'no sideways scrolling at 320 px',
    );
    await page.screenshot({ path: '/tmp/i28-layout-list-320.png', fullPage: true });
    // Unmarking by keyboard too.
    await press(page, 'Favourite: Ops board', 'Enter');
    await status(page, 'Removed "Ops board" from your favourites.');
    await page.waitForFunction(
      () =>
        document.querySelector('button[aria-label="Favourite: Ops board"]')?.getAttribute('aria-pressed') === 'false',
    );
  });
});
