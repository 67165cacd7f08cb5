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
 * Export from one tenant and import into another in Chromium: the download is the API's bundle, the import form takes
 * the file, a taken slug is explained, and the imported dashboard draws from the other tenant's source of that slug.
 */
describe('the dashboard web app: export and import', () => {
  let s: DashboardServer;
  let target: FreshDatabase;
  let browser: Browser;
  let editor: SignedIn;
  let viewer: SignedIn;
  let theirEditor: SignedIn;
  let dashboardId: number;

  before(async () => {
    target = await freshPostgres('webtransfer');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    await c.query(
      `CREATE TABLE regions (name text PRIMARY KEY, orders int NOT NULL); INSERT INTO regions VALUES ('north', 12), ('south', 7);`,
    );
    await c.end();
    s = await startDashboard('webtransfer');
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const theirAdmin = await s.signIn({ tenant: 'globex', role: 'admin' });
    theirEditor = await s.signIn({ tenant: 'globex', role: 'editor' });
    let sourceId = 0;
    for (const who of [admin, theirAdmin]) {
      const r = await s.request('POST', '/api/v1/datasources', {
        as: who,
        body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: target.url },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      if (who === admin) sourceId = r.body.id;
    }
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'regions',
        title: 'Orders by region',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [{ id: sourceId }],
          widgets: [
            {
              id: 't',
              type: 'table',
              title: 'Regions',
              position: { x: 0, y: 0, w: 6, h: 5 },
              dataSourceId: sourceId,
              query: 'SELECT name, orders FROM regions ORDER BY name',
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
  const pageAs = (who: SignedIn) => pages.open(who);

  let exported: Buffer;

  test('a viewer exports a dashboard: the download is the bundle, named after the slug', async () => {
    const page = await pageAs(viewer);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('heading', { level: 1, name: 'Orders by region' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'regions.dashboard.json');
    exported = await readFile(await download.path());
    const bundle = JSON.parse(exported.toString('utf8'));
    assert.equal(bundle.dashboards[0].slug, 'regions');
    assert.equal(bundle.dashboards[0].definition.widgets[0].dataSource, 'shop');
    assert.equal(bundle.dashboards[0].definition.widgets[0].dataSourceId, undefined);
    await page.getByRole('status').filter({ hasText: 'Exported as regions.dashboard.json' }).waitFor();
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Import' }).count(), 0, 'a viewer is offered no import');
  });

  test("another tenant's editor imports the file with the keyboard; the dashboard draws from their source", async () => {
    const page = await pageAs(theirEditor);
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('status').filter({ hasText: 'No dashboards yet.' }).waitFor();
    await page.getByRole('button', { name: 'Import' }).focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Import dashboards' });
    await form.waitFor();
    assert.equal(
      await page.evaluate('document.activeElement.id'),
      'import-file',
      'the file field has focus when the form opens',
    );
    await assertAccessible(page, 'import form');
    await screenshot(page, 'transfer-01-import-form');

    // Not JSON: said before anything is sent.
    await form
      .getByLabel('Exported file (.json)')
      .setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('dashboards: yes') });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .filter({ hasText: /^notes\.json is not JSON/ })
      .waitFor();

    await form
      .getByLabel('Exported file (.json)')
      .setInputFiles({ name: 'regions.dashboard.json', mimeType: 'application/json', buffer: exported });
    await form.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders by region' }).waitFor();
    const table = page.getByRole('table').filter({ hasText: 'north' });
    await table.waitFor();
    assert.match(await table.innerText(), /north\s+12[\s\S]*south\s+7/);
  });

  test('importing a slug that is taken says how to replace it; Replace makes a new version', async () => {
    const page = await pageAs(editor);
    await page.goto(`${s.url}/dashboards`);
    await page.getByRole('button', { name: 'Import' }).click();
    const form = page.getByRole('form', { name: 'Import dashboards' });
    const bundle = JSON.parse(exported.toString('utf8'));
    bundle.dashboards[0].title = 'Orders by region, imported';
    await form.getByLabel('Exported file (.json)').setInputFiles({
      name: 'regions.dashboard.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bundle)),
    });
    await form.getByRole('button', { name: 'Import' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'already exists' });
    await alert.waitFor();
    assert.equal(
      await alert.innerText(),
      'A dashboard with the short name “regions” already exists here. Tick “Replace” to import it as a new version of that dashboard.',
    );
    await assertAccessible(page, 'import form with a conflict');
    await screenshot(page, 'transfer-02-import-conflict');

    await form.getByRole('checkbox', { name: /Replace a dashboard with the same short name/ }).check();
    await form.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders by region, imported' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/dashboards/${dashboardId}`);
    const got = await s.request('GET', `/api/v1/dashboards/${dashboardId}`, { as: viewer });
    assert.equal(got.body.version, 2);
  });
});
