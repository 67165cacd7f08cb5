import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { assertNarrowBothSchemes } from '../support/console-browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';

/**
 * "Who can see this dashboard" in the Share panel: an admin restricts a dashboard to one named viewer, by keyboard;
 * the person named still finds it, another viewer no longer does. Axe light and dark, 320 px.
 */
describe('the dashboard web app: who can see a dashboard', () => {
  let s: DashboardServer;
  let browser: Browser;
  let admin: SignedIn;
  let named: SignedIn;
  let other: SignedIn;
  let viewingEditor: SignedIn;
  let dashboardId: number;

  before(async () => {
    s = await startDashboard('webaccess');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    named = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Nadia Named', email: 'nadia@acme.example' });
    other = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Oscar Other', email: 'oscar@acme.example' });
    viewingEditor = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Vera View', email: 'vera@acme.example' });
    const created = await s.request('POST', '/api/v1/dashboards', {
      as: admin,
      body: {
        slug: 'payroll',
        title: 'Payroll',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [],
          widgets: [
            { id: 'about', type: 'text', position: { x: 0, y: 0, w: 12, h: 2 }, options: { markdown: 'Salaries.' } },
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
  });

  const pages = pageOpener(() => browser);
  afterEach(pages.closeAll);

  test('an admin restricts it to one viewer by keyboard; that viewer still sees it, another gets not found', async () => {
    const page = await pages.open(admin);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('heading', { level: 1, name: 'Payroll' }).waitFor();
    await page.getByRole('button', { name: 'Share' }).click();
    const section = page.getByRole('region', { name: 'Who can see this dashboard' });
    const everyone = section.getByRole('radio', { name: 'Everyone in the tenant' });
    await everyone.waitFor();
    assert.equal(await everyone.isChecked(), true);

    // By keyboard: to the first radio, the arrow to "Only these people", then the person's select.
    await everyone.focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await section.getByRole('radio', { name: 'Only these people' }).isChecked(), true);
    const choice = section.getByRole('combobox', { name: /Nadia Named/ });
    await choice.focus();
    await choice.selectOption('view');
    await section.getByRole('combobox', { name: /Vera View/ }).selectOption('view');
    await section.getByRole('button', { name: 'Save who can see it' }).focus();
    await page.keyboard.press('Enter');
    await section.getByRole('status').filter({ hasText: 'only admins, its creator and the people chosen' }).waitFor();
    const access = await s.request('GET', `/api/v1/dashboards/${dashboardId}/access`, { as: admin });
    assert.deepEqual(
      { restricted: access.body.restricted, viewers: access.body.viewers, editors: access.body.editors },
      { restricted: true, viewers: [named.userId, viewingEditor.userId], editors: [] },
    );
    await assertAccessible(page, 'access section, light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'access section, dark');
    await screenshot(page, 'access-01-panel-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await assertNarrowBothSchemes(page, 'access section', 'access-02');

    const theirs = await pages.open(named);
    await theirs.goto(`${s.url}/dashboards/${dashboardId}`);
    await theirs.getByRole('heading', { level: 1, name: 'Payroll' }).waitFor();
    // An editor of the tenant listed as a viewer is offered no change: no Edit, Share or Delete.
    const vera = await pages.open(viewingEditor);
    await vera.goto(`${s.url}/dashboards/${dashboardId}`);
    await vera.getByRole('heading', { level: 1, name: 'Payroll' }).waitFor();
    await vera.getByRole('link', { name: 'Subscriptions' }).waitFor();
    await vera.waitForLoadState('networkidle');
    for (const name of ['Edit dashboard', 'Share', 'Delete dashboard'])
      assert.equal(await vera.getByRole('button', { name }).count(), 0, name);
    const list = await s.request('GET', '/api/v1/dashboards', { as: other });
    assert.deepEqual(list.body.data, []);
    assert.equal((await s.request('GET', `/api/v1/dashboards/${dashboardId}`, { as: other })).status, 404);
  });
});
