import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { openPicture } from '../../src/dashboard/render/picture.ts';
import { renderCredentialFor } from './render-credential.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { assertCrumbAboveHeading, assertNarrowBothSchemes, focused, gapBetween } from '../support/console-browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';
import { MailCatcher, mimeParts } from './alert-receivers.ts';

/**
 * A dashboard's subscriptions in Chromium: an editor reaches them from the dashboard, adds one with the keyboard
 * (a time in a zone, an address, a parameter fixed) and sends it now; the mail arrives with the picture and the CSV.
 */
describe('the dashboard web app: subscriptions', () => {
  let s: DashboardServer;
  let source: FreshDatabase;
  let browser: Browser;
  let editor: SignedIn;
  let admin: SignedIn;
  let dashboardId = 0;
  let sourceId = 0;
  const mail = new MailCatcher();

  before(async () => {
    await mail.start();
    source = await freshPostgres('websubsrc');
    const c = new pg.Client({ connectionString: source.url });
    await c.connect();
    await c.query(`CREATE TABLE sales (region text, amount int); INSERT INTO sales VALUES ('north', 5), ('south', 9);`);
    await c.end();
    s = await startDashboard('websubs', { DASHBOARD_SMTP_URL: mail.url });
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: source.url },
    });
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'sales',
        title: 'Sales',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [{ id: ds.body.id }],
          parameters: [{ name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'] }],
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
    dashboardId = d.body.id;
    sourceId = ds.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await source?.drop();
    await mail.close();
  });

  const pages = pageOpener(() => browser);
  afterEach(pages.closeAll);

  async function tabTo(page: Page, name: RegExp): Promise<void> {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      if (name.test(f.text) || name.test(f.name) || name.test(f.id)) return;
    }
    assert.fail(`${name} is not reachable with Tab`);
  }

  test('an editor adds a subscription with the keyboard and sends it now', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}`);
    await page.getByRole('heading', { level: 1, name: 'Sales' }).waitFor();
    await tabTo(page, /^Subscriptions$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Subscriptions of Sales' }).waitFor();
    await page.getByText('No subscriptions yet.').waitFor();
    await assertAccessible(page, 'subscriptions, none');
    // The way back is the dashboard's name above the heading, as the dashboard's own "All dashboards"; the intro is
    // set apart from the button under it.
    await assertCrumbAboveHeading(page, 'Sales');
    const intro = page.getByText('Each subscription mails a picture of the dashboard');
    const intoButton = await gapBetween(intro, page.getByRole('button', { name: 'New subscription' }));
    assert.ok(intoButton >= 8, `${intoButton} px between the intro and New subscription`);
    await tabTo(page, /^New subscription$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'New subscription' }).waitFor();
    await tabTo(page, /^sub-zone$/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Europe/Paris');
    await tabTo(page, /^sub-addresses$/);
    await page.keyboard.type('team@acme.example');
    await tabTo(page, /^sub-p-region$/);
    await page.keyboard.press('ArrowDown');
    await assertAccessible(page, 'subscription form');
    await screenshot(page, 'subscriptions-01-form');
    await assertNarrowBothSchemes(page, 'subscription form', 'subscriptions-01-form');
    await tabTo(page, /^Add subscription$/);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Subscription added.' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Every day at 08:00 (Europe/Paris)' });
    await row.getByText('region = south').waitFor();
    await row.getByText(/you, team@acme\.example/).waitFor();
    await assertAccessible(page, 'subscriptions list');
    const aboveList = await gapBetween(
      page.getByRole('button', { name: 'New subscription' }),
      page.getByRole('table', { name: 'Subscriptions' }),
    );
    assert.ok(aboveList >= 8, `${aboveList} px between New subscription and the list`);
    await tabTo(page, /^Send now/);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /^Sent: mailed to 2 recipient/ })
      .waitFor();
    const m = await mail.inbox.next((x) => x.subject === 'Dashboard: Sales');
    const parts = mimeParts(m.raw);
    const png = parts.find((p) => p.headers['content-type']?.startsWith('image/png'));
    assert.ok(
      png && png.body.length > 10_000,
      JSON.stringify(parts.map((p) => [p.headers['content-type'], p.body.length])),
    );
    const csv = parts.find((p) => p.headers['content-type']?.startsWith('text/csv'))!;
    assert.equal(csv.body.toString('utf8'), 'region,amount\r\nsouth,9');
    await screenshot(page, 'subscriptions-02-list');
    await assertNarrowBothSchemes(page, 'subscriptions list', 'subscriptions-02-list');
  });

  test('an admin chooses other people of the tenant as recipients', async () => {
    const page = await pages.open(admin);
    await page.goto(`${s.url}/dashboards/${dashboardId}/subscriptions`);
    await page.getByRole('button', { name: 'New subscription' }).click();
    await page.getByLabel(new RegExp(`\\(${editor.email.replace(/\./g, '\\.')}\\)`)).check();
    await page.getByLabel('Time zone').fill('UTC');
    await assertAccessible(page, 'subscription form as an admin');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.getByRole('status').filter({ hasText: 'Subscription added.' }).waitFor();
    await page
      .getByRole('row')
      .filter({ hasText: 'Every day at 08:00 (UTC)' })
      .getByText('you, 1 other user(s)')
      .waitFor();
    const list = await s.request('GET', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: admin });
    const mine = list.body.items.find((x: { ownerId: number }) => x.ownerId === admin.userId);
    assert.deepEqual(mine.recipients.userIds.sort(), [admin.userId, editor.userId].sort());
  });

  test('the picture a subscription mails shows the title, the values as text and the widgets, and no control', async () => {
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'sales-picture',
        title: 'Sales picture',
        description: 'Amounts sold per region.',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [{ id: sourceId }],
          parameters: [
            { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'] },
            { name: 'period', type: 'time_range', label: 'Period', default: '30d' },
          ],
          widgets: [
            {
              id: 'amounts',
              type: 'table',
              title: 'Amounts',
              position: { x: 0, y: 0, w: 4, h: 5 },
              dataSourceId: sourceId,
              query: 'SELECT region, amount FROM sales WHERE region = :region',
            },
            {
              id: 'total',
              type: 'stat',
              title: 'All regions',
              position: { x: 4, y: 0, w: 3, h: 5 },
              dataSourceId: sourceId,
              query: 'SELECT sum(amount) AS total FROM sales',
            },
            {
              id: 'regions',
              type: 'bar',
              title: 'By region',
              position: { x: 7, y: 0, w: 5, h: 8 },
              dataSourceId: sourceId,
              query: 'SELECT region, amount FROM sales ORDER BY region',
            },
            {
              id: 'many',
              type: 'table',
              title: 'Numbers',
              position: { x: 0, y: 8, w: 6, h: 6 },
              dataSourceId: sourceId,
              query: 'SELECT n, n * 2 AS twice FROM generate_series(1, 30) n',
            },
            {
              id: 'line',
              type: 'line',
              title: 'Twice each number',
              position: { x: 6, y: 8, w: 6, h: 6 },
              dataSourceId: sourceId,
              cacheSeconds: 600,
              // Not the table's statement: the same one would share its runs, which the table does not keep.
              query: 'SELECT n AS number, n * 2 AS twice FROM generate_series(1, 30) n',
            },
            {
              id: 'note',
              type: 'text',
              title: 'About',
              position: { x: 0, y: 5, w: 7, h: 3 },
              options: { markdown: 'Units, not euros.' },
            },
          ],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const address = `${s.url}/dashboards/${d.body.id}?var-region=south&var-period=7d`;
    const controls = 'button, a[href], input, select, textarea, [role="button"], [role="link"]';
    const { credential, db } = await renderCredentialFor(s, editor);
    try {
      // The address the renderer opens, with the credential it signs in with (src/dashboard/render/picture.ts).
      const page = await pages.open(credential.pair, { timezoneId: 'UTC' });
      await page.goto(address);
      await page.getByRole('heading', { level: 1, name: 'Sales picture' }).waitFor();
      await page.locator('.chart[data-drawn="true"]').nth(1).waitFor();
      await page.getByRole('table', { name: 'Amounts data' }).getByRole('cell', { name: '9', exact: true }).waitFor();
      await page.locator('.stat-value').filter({ hasText: '14' }).waitFor();
      assert.deepEqual(await page.locator(controls).allTextContents(), [], 'no control in the picture');
      assert.equal(await page.getByRole('navigation').count(), 0, 'no navigation');
      assert.equal(await page.getByRole('banner').count(), 0, 'no banner');
      // Ten rows of thirty, said in words where the page has Previous and Next.
      await page.getByText('The first 10 of 30 rows.').waitFor();
      const values = await page.locator('.picture-values').innerText();
      assert.match(values, /Region\s+south/);
      assert.match(values, /Period\s+Last 7 days: .+ – .+ \(UTC\)/);
      await page.getByText('Units, not euros.').waitFor();
      await assertAccessible(page, 'subscription picture');
      // Drawn again, the line chart's kept rows say their age, and offer no Refresh.
      await page.reload();
      await page.getByText(/^Cached /).waitFor();
      await page.locator('.chart[data-drawn="true"]').nth(1).waitFor();
      assert.equal(await page.locator(controls).count(), 0);
      await screenshot(page, 'subscriptions-03-picture');
      await assertNarrowBothSchemes(page, 'subscription picture', 'subscriptions-03-picture');
      // Another address of the app draws nothing, and offers nothing either.
      await page.goto(`${s.url}/dashboards/${d.body.id}/subscriptions`);
      await page.getByRole('heading', { level: 1, name: 'Nothing to draw' }).waitFor();
      assert.equal(await page.locator(controls).count(), 0);
    } finally {
      await credential.revoke();
      await db.close();
    }

    // The same address, signed in as the editor the credential was made for: the dashboard's controls are there.
    const own = await pages.open(editor);
    await own.goto(address);
    await own.getByRole('heading', { level: 1, name: 'Sales picture' }).waitFor();
    for (const name of ['Edit dashboard', 'Share', 'Delete dashboard', 'Sign out'])
      await own.getByRole('button', { name, exact: true }).waitFor();
    await own.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(await own.locator('.picture-values').count(), 0);

    // The picture as mailed, to look at: test-artifacts/dashboard-web/subscriptions-04-mail.png.
    const sub = await s.request('POST', `/api/v1/dashboards/${d.body.id}/subscriptions`, {
      as: editor,
      body: {
        schedule: { frequency: 'daily', hour: 8, minute: 0, timezone: 'UTC' },
        recipients: { addresses: ['picture@acme.example'] },
        parameters: { region: 'south', period: '7d' },
      },
    });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    const sent = await s.request('POST', `/api/v1/subscriptions/${sub.body.id}/send`, { as: editor });
    assert.equal(sent.body.ok, true, sent.body.detail);
    const m = await mail.inbox.next((x) => x.to.includes('picture@acme.example'));
    const png = mimeParts(m.raw).find((p) => p.headers['content-type']?.startsWith('image/png'))!;
    mkdirSync('test-artifacts/dashboard-web', { recursive: true });
    writeFileSync('test-artifacts/dashboard-web/subscriptions-04-mail.png', png.body);
  });

  test("the picture's times are in the subscription's zone, and the renderer refuses to photograph any other page", async () => {
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'sales-zone',
        title: 'Sales by zone',
        definition: {
          layout: { type: 'grid', columns: 12, rowHeight: 30 },
          dataSources: [],
          parameters: [{ name: 'period', type: 'time_range', label: 'Period' }],
          widgets: [],
        },
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const { credential, db } = await renderCredentialFor(s, editor);
    // The first day of 2026 in UTC is 05:30 to 05:30 the next day in Kolkata, and 01:00 to 01:00 in Paris. Chromium's
    // ICU may name Kolkata by its older canonical name, Asia/Calcutta.
    const period = '2026-01-01T00:00:00Z/2026-01-02T00:00:00Z';
    const drawn = async (timezone: string, dashboardId = d.body.id as number) => {
      const page = await openPicture(browser, s.url, credential.pair, {
        dashboardId,
        parameters: { period },
        timezone,
      });
      try {
        return await page.locator('.picture-values').innerText();
      } finally {
        await page.context().close();
      }
    };
    try {
      assert.match(
        await drawn('Asia/Kolkata'),
        /Period\s+Jan 1, 2026, 5:30\sAM\s–\sJan 2, 2026, 5:30\sAM \(Asia\/(Kolkata|Calcutta)\)/,
      );
      assert.match(await drawn('Europe/Paris'), /Jan 1, 2026, 1:00\sAM\s–\sJan 2, 2026, 1:00\sAM \(Europe\/Paris\)/);
      await assert.rejects(drawn('UTC', 999_999), /could not draw the dashboard: .+/);
      await credential.revoke();
      // An ended credential shows the sign-in page, which a mail must not carry: an error the send reports instead.
      await assert.rejects(drawn('UTC'), /asked the render to sign in: its credential was refused/);
    } finally {
      await credential.revoke();
      await db.close();
    }
  });

  test('deleting a subscription asks first, by keyboard: who stops getting it; Escape and Cancel keep it', async () => {
    const made = await s.request('POST', `/api/v1/dashboards/${dashboardId}/subscriptions`, {
      as: editor,
      body: {
        schedule: { frequency: 'weekly', weekday: 1, hour: 7, minute: 30, timezone: 'UTC' },
        recipients: { userIds: [editor.userId], addresses: ['bye@acme.example', 'ops@acme.example'] },
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const there = async () =>
      (await s.request('GET', `/api/v1/dashboards/${dashboardId}/subscriptions`, { as: editor })).body.items.some(
        (x: { id: number }) => x.id === made.body.id,
      );
    const title = /^Delete the subscription “Every Monday at 07:30 \(UTC\)”\?$/;
    const opened = async () => {
      const dialog = page.getByRole('dialog', { name: title });
      await dialog.waitFor();
      assert.equal((await focused(page)).text, 'Cancel', 'the dialog starts on Cancel');
      return ((await dialog.locator('.dialog-body').textContent()) ?? '').replace(/\s+/g, ' ');
    };
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}/subscriptions`);
    await page.getByRole('row').filter({ hasText: 'Every Monday at 07:30 (UTC)' }).waitFor();
    await tabTo(page, /^Delete Every Monday at 07:30 \(UTC\)$/);
    await page.keyboard.press('Enter');
    assert.equal(
      await opened(),
      'It will not be mailed again to you, bye@acme.example and ops@acme.example. The dashboard stays.',
    );
    await assertAccessible(page, 'delete subscription dialog');
    await screenshot(page, 'subscriptions-05-delete');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'delete subscription dialog, dark');
    await screenshot(page, 'subscriptions-05-delete-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await assertNarrowBothSchemes(page, 'delete subscription dialog', 'subscriptions-05-delete');
    // Escape keeps it, and gives the focus back to its Delete.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).name, 'Delete Every Monday at 07:30 (UTC)');
    assert.equal(await there(), true, 'Escape deleted nothing');
    // Cancel keeps it.
    await page.keyboard.press('Enter');
    await opened();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await there(), true, 'Cancel deleted nothing');
    // Its own button deletes it, and the focus is not lost with its row.
    await page.keyboard.press('Enter');
    await opened();
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).text, 'Delete subscription');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Subscription deleted.' }).waitFor();
    assert.equal(await there(), false);
    await page.getByRole('row').filter({ hasText: 'Every Monday' }).waitFor({ state: 'detached' });
    assert.equal((await focused(page)).text, 'Subscriptions of Sales', "the focus goes to the screen's heading");
  });

  test('a bad time zone is refused with the service message, in an alert', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/dashboards/${dashboardId}/subscriptions`);
    await page.getByRole('button', { name: 'New subscription' }).click();
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.getByRole('alert').filter({ hasText: 'not an IANA time zone' }).waitFor();
    await assertAccessible(page, 'subscription form with an error');
  });
});
