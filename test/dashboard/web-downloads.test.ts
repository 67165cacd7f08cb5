import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { assertNarrowBothSchemes, focused } from '../support/console-browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';

/**
 * A dashboard saved as a PNG or a PDF from its screen, in Chromium: a viewer opens the panel and downloads both with
 * the keyboard, with the values chosen on the screen; a refusal of the service is said in the panel.
 */
describe('the dashboard web app: saving a dashboard as a PNG or a PDF', () => {
  let s: DashboardServer;
  let source: FreshDatabase;
  let serviceDb: pg.Client;
  let browser: Browser;
  let viewer: SignedIn;
  let dashboardId = 0;

  before(async () => {
    source = await freshPostgres('webdlsrc');
    const c = new pg.Client({ connectionString: source.url });
    await c.connect();
    await c.query(`CREATE TABLE sales (region text, amount int); INSERT INTO sales VALUES ('north', 5), ('south', 9);`);
    await c.end();
    s = await startDashboard('webdownloads', { DASHBOARD_SCHEDULER: 'false' });
    serviceDb = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
    await serviceDb.connect();
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: source.url },
    });
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'sales',
        title: 'Regional sales',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [{ id: ds.body.id }],
          parameters: [
            { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'], default: 'north' },
          ],
          widgets: [
            {
              id: 'amount',
              type: 'table',
              title: 'Amount',
              position: { x: 0, y: 0, w: 6, h: 5 },
              dataSourceId: ds.body.id,
              query: 'SELECT region, amount FROM sales WHERE region = :region',
            },
          ],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    dashboardId = d.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await serviceDb?.end();
    await s?.close();
    await source?.drop();
  });

  const pages = pageOpener(() => browser);
  afterEach(pages.closeAll);

  async function tabTo(page: Page, name: RegExp): Promise<void> {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      if (name.test(f.label) || name.test(f.id)) return;
    }
    assert.fail(`${name} is not reachable with Tab`);
  }

  /** Presses Enter on the focused button and takes the download it starts: its name and bytes. */
  async function download(page: Page): Promise<{ name: string; bytes: Buffer }> {
    const [file] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.keyboard.press('Enter'),
    ]);
    return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
  }

  test('a viewer downloads a PNG and a PDF with the keyboard, with the value chosen on the screen', async () => {
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/dashboards/${dashboardId}?var-region=south`);
    await page.getByRole('heading', { level: 1, name: 'Regional sales' }).waitFor();
    await page.getByRole('cell', { name: '9', exact: true }).waitFor();
    await tabTo(page, /^Save as PNG or PDF$/);
    await page.keyboard.press('Enter');
    // The panel opens with the focus on its heading, the button saying it is open.
    await page.getByRole('heading', { level: 2, name: 'Save as PNG or PDF' }).waitFor();
    assert.equal((await focused(page)).text, 'Save as PNG or PDF');
    assert.equal((await focused(page)).tag, 'h2');
    assert.equal(await page.getByRole('button', { name: 'Save as PNG or PDF' }).getAttribute('aria-expanded'), 'true');
    await assertAccessible(page, 'download panel');

    await tabTo(page, /^Download PNG$/);
    const shown = page.getByRole('status').filter({ hasText: 'Drawing the PNG… This can take up to a minute.' });
    const [png] = await Promise.all([download(page), shown.waitFor()]);
    assert.match(png.name, /^regional-sales-\d{4}-\d{2}-\d{2}\.png$/);
    assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
    assert.equal(png.bytes.readUInt32BE(16), 1280);
    await page
      .getByRole('status')
      .filter({ hasText: `Downloaded ${png.name}.` })
      .waitFor();
    assert.equal((await focused(page)).label, 'Download PNG', 'the focus stays on the button pressed');

    await tabTo(page, /^Download PDF$/);
    const pdf = await download(page);
    assert.match(pdf.name, /^regional-sales-\d{4}-\d{2}-\d{2}\.pdf$/);
    assert.equal(pdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    await page
      .getByRole('status')
      .filter({ hasText: `Downloaded ${pdf.name}.` })
      .waitFor();
    await assertAccessible(page, 'download panel after a download');
    await screenshot(page, 'downloads-01-panel');
    await assertNarrowBothSchemes(page, 'download panel', 'downloads-01-panel');

    // Drawn with the value of the screen, in the browser's zone, as the viewer.
    const records = await serviceDb.query(
      `SELECT user_id::int AS user_id, details FROM audit_log WHERE action = 'dashboard.render' ORDER BY id`,
    );
    assert.deepEqual(
      records.rows.map((r) => [r.user_id, r.details.format, r.details.parameters, r.details.outcome]),
      [
        [viewer.userId, 'png', { region: 'south' }, 'ok'],
        [viewer.userId, 'pdf', { region: 'south' }, 'ok'],
      ],
    );
  });

  test("the service's refusal is said in the panel, in an alert", async () => {
    const page = await pages.open(viewer);
    // A busy instance, as the service answers it (test/dashboard/downloads.test.ts makes a real one).
    await page.route('**/api/v1/dashboards/*/render', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'retry-after': '5' },
        body: JSON.stringify({
          error: {
            code: 'UNAVAILABLE',
            message: 'every picture this instance may draw at once is being drawn, and as many wait: try again shortly',
          },
        }),
      }),
    );
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('button', { name: 'Save as PNG or PDF' }).click();
    await page.getByRole('button', { name: 'Download PDF' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^The PDF could not be made: every picture .+ try again shortly\.$/ })
      .waitFor();
    await assertAccessible(page, 'download panel with an error');
    await screenshot(page, 'downloads-02-refused');
    await assertNarrowBothSchemes(page, 'download panel with an error', 'downloads-02-refused');
    // Closed again by its button.
    await page.getByRole('button', { name: 'Save as PNG or PDF' }).click();
    assert.equal(await page.getByRole('heading', { level: 2, name: 'Save as PNG or PDF' }).count(), 0);
  });
});
