import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';

/**
 * Public links in Chromium: an editor turns one on from the dashboard, a visitor with no session opens it and sees the
 * charts (never the SQL) and changes a parameter, and the link stops working once turned off.
 */
describe('the dashboard web app: public links', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let browser: Browser;
  let editor: SignedIn;
  let viewer: SignedIn;
  let dashboardId: number;
  let link = '';

  before(async () => {
    target = await freshPostgres('webshare');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(`CREATE TABLE sales (region text, product text, amount int);
      INSERT INTO sales VALUES ('north', 'apples', 12), ('north', 'pears', 3), ('south', 'plums', 7);`);
    await c.end();
    s = await startDashboard('webshare');
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const src = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
    });
    assert.equal(src.status, 201, JSON.stringify(src.body));
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'regional',
        title: 'Regional sales',
        description: 'Products sold per region',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [{ id: src.body.id }],
          parameters: [
            { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'], default: 'north' },
          ],
          widgets: [
            {
              id: 'products',
              type: 'table',
              title: 'Products',
              position: { x: 0, y: 0, w: 6, h: 6 },
              dataSourceId: src.body.id,
              query: 'SELECT product, amount FROM sales WHERE region = :region ORDER BY product',
            },
            {
              id: 'regions',
              type: 'table',
              title: 'Areas',
              position: { x: 6, y: 3, w: 6, h: 5 },
              dataSourceId: src.body.id,
              query: 'SELECT region, sum(amount) AS amount FROM sales GROUP BY region ORDER BY region',
              click: { setParameter: 'region' },
            },
            {
              id: 'about',
              type: 'text',
              title: 'About',
              position: { x: 6, y: 0, w: 6, h: 3 },
              options: { markdown: 'Figures are **units**.' },
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    dashboardId = created.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await target?.drop();
  });

  const pages = pageOpener(() => browser);
  afterEach(pages.closeAll);
  const open = pages.open;

  test('an editor turns the public link on from the dashboard; a viewer is offered no Share', async () => {
    const page = await open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('heading', { level: 1, name: 'Regional sales' }).waitFor();
    await page.getByRole('button', { name: 'Share' }).click();
    const panel = page.getByRole('region', { name: 'Public link' });
    await panel.getByRole('button', { name: 'Create public link' }).waitFor();
    assert.equal(
      await page.evaluate('document.activeElement.id'),
      'share-h',
      'the panel takes the focus to its heading',
    );
    await panel.getByRole('button', { name: 'Create public link' }).click();
    const code = panel.locator('code');
    await code.waitFor();
    link = (await code.textContent()) ?? '';
    assert.match(link, new RegExp(`^${s.url}/public/[A-Za-z0-9_-]{43}$`));
    await panel.getByRole('status').filter({ hasText: 'The public link is on' }).waitFor();
    await assertAccessible(page, 'share panel');
    await screenshot(page, 'share-01-panel');

    const theirs = await open(viewer);
    await theirs.goto(`${s.url}/dashboards/${dashboardId}`);
    await theirs.getByRole('heading', { level: 1, name: 'Regional sales' }).waitFor();
    await theirs.getByRole('button', { name: 'Export' }).waitFor();
    assert.equal(await theirs.getByRole('button', { name: 'Share' }).count(), 0);
  });

  test('a visitor without a session opens the link: the charts, the parameter, no SQL and no sign-in', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await open(undefined, { colorScheme });
      await page.goto(link);
      await page.getByRole('heading', { level: 1, name: 'Regional sales' }).waitFor();
      const table = page.getByRole('table').filter({ hasText: 'apples' });
      await table.waitFor();
      assert.match(await table.innerText(), /apples\s+12[\s\S]*pears\s+3/);
      await page.getByText('Figures are').waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no app navigation for a visitor');
      assert.equal(await page.getByRole('button', { name: /Sign in|Edit dashboard/ }).count(), 0);
      assert.ok(!(await page.content()).includes('SELECT'), 'the SQL is not on the page');
      await assertAccessible(page, `public dashboard, ${colorScheme}`);
      await screenshot(page, `share-02-visitor-${colorScheme}`);
      if (colorScheme === 'light') {
        // The rows as a spreadsheet would take them (Redash's and Grafana's "Download CSV"), here for a visitor too.
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Download CSV of Products' }).click(),
        ]);
        assert.match(download.suggestedFilename(), /^products-\d{4}-\d{2}-\d{2}\.csv$/);
        assert.equal(await readFile(await download.path(), 'utf8'), '\uFEFFproduct,amount\r\napples,12\r\npears,3\r\n');
        await page.getByLabel('Region').selectOption('south');
        await page.getByRole('table').filter({ hasText: 'plums' }).waitFor();
        assert.equal(await page.getByRole('table').filter({ hasText: 'apples' }).count(), 0);
        // A visitor may set the parameters, so a click on a value sets one too (the Areas table's click behaviour):
        // back to north, its default (no filter to show), then south, said in a chip that clears it.
        const regions = page.locator('[data-widget="regions"]');
        await regions.getByRole('button', { name: 'Filter by Region: north' }).click();
        await page.getByRole('table').filter({ hasText: 'apples' }).waitFor();
        assert.equal(await page.getByLabel('Region', { exact: true }).inputValue(), 'north');
        assert.equal(await page.getByRole('region', { name: 'Active filters' }).count(), 0);
        await regions.getByRole('button', { name: 'Filter by Region: south' }).click();
        await page.getByRole('table').filter({ hasText: 'plums' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Filtered by Region: south.' }).waitFor();
        await page.getByRole('button', { name: 'Clear filter Region: south' }).click();
        await page.getByRole('table').filter({ hasText: 'apples' }).waitFor();
      }
    }
  });

  test('a turned-off link and a made-up one say the link is not available', async () => {
    const page = await open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('button', { name: 'Share' }).click();
    const panel = page.getByRole('region', { name: 'Public link' });
    await panel.getByRole('button', { name: 'Turn off the link' }).click();
    await page
      .getByRole('dialog', { name: /^Turn off the public link to/ })
      .getByRole('button', { name: 'Turn off the link' })
      .click();
    await panel.getByRole('button', { name: 'Create public link' }).waitFor();

    for (const address of [link, `${s.url}/public/not-a-link`]) {
      const visitor = await open(undefined);
      await visitor.goto(address);
      await visitor.getByRole('heading', { level: 1, name: 'Link not available' }).waitFor();
      assert.match(await visitor.getByRole('alert').innerText(), /turned off, or the address is incomplete/);
      await assertAccessible(visitor, 'link not available');
    }
  });
});
