import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { assertCrumbAboveHeading, assertNarrowBothSchemes, focused, gapBetween } from '../support/console-browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { assertAccessible, pageOpener, screenshot } from './web/browser.ts';
import { StandardWebhookReceiver } from './alert-receivers.ts';

/**
 * The alert screens in Chromium: an editor makes a rule with the keyboard alone (sending a test notification from
 * the form, choosing hourly reminders), sees it fire and remind, reads its history and silences it; an admin adds a channel and is shown its secret once; a
 * viewer reads and is offered no change. Each screen: axe at zero, light and dark, 320 px.
 */
describe('the dashboard web app: alerts', () => {
  let s: DashboardServer;
  let source: FreshDatabase;
  let browser: Browser;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  const hook = new StandardWebhookReceiver();
  let ruleId = 0;
  let serviceDb: pg.Client;

  before(async () => {
    await hook.start();
    source = await freshPostgres('webalertsrc');
    const c = new pg.Client({ connectionString: source.url });
    await c.connect();
    await c.query('CREATE TABLE queue (depth int); INSERT INTO queue VALUES (120)');
    await c.end();
    s = await startDashboard('webalerts', {
      DASHBOARD_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      DASHBOARD_SCHEDULER_TICK_MS: '100',
    });
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: { name: 'Jobs', slug: 'jobs', type: 'postgres', connectionUrl: source.url },
    });
    await s.request('POST', '/api/v1/queries', {
      as: editor,
      body: { name: 'Queue depth', dataSourceId: ds.body.id, query: 'SELECT depth FROM queue' },
    });
    const ch = await s.request('POST', '/api/v1/alert-channels', {
      as: admin,
      body: { name: 'Pager', kind: 'webhook', url: hook.url },
    });
    hook.secret = ch.body.secret;
    serviceDb = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
    await serviceDb.connect();
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await serviceDb?.end();
    await s?.close();
    await source?.drop();
    await hook.close();
  });

  const pages = pageOpener(() => browser);
  afterEach(pages.closeAll);

  /** At the default 1280 px, dark: axe at zero and a screenshot (assertNarrowBothSchemes does 320 px). */
  async function wideDark(page: Page, what: string, shot: string): Promise<void> {
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, `${what}, dark`);
    await screenshot(page, `${shot}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** Tabs forward until the focus is on an element whose text or label matches. */
  async function tabTo(page: Page, name: RegExp): Promise<void> {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      if (name.test(f.text) || name.test(f.name) || name.test(f.id)) return;
    }
    assert.fail(`${name} is not reachable with Tab`);
  }

  test('an editor makes a rule with the keyboard, sends a test from the form, and it fires', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/alerts`);
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    await page.getByRole('table', { name: 'Notification channels' }).waitFor();
    await assertAccessible(page, 'alerts list, empty');
    await tabTo(page, /^New alert rule$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'New alert rule' }).waitFor();
    await page
      .getByLabel('Saved query', { exact: true })
      .locator('option', { hasText: 'Queue depth' })
      .waitFor({ state: 'attached' });
    await assertAccessible(page, 'rule form');
    await tabTo(page, /^ar-name$/);
    await page.keyboard.type('Queue backing up');
    await tabTo(page, /^ar-query$/);
    await page.keyboard.press('ArrowDown');
    await tabTo(page, /^ar-threshold$/);
    await page.keyboard.type('100');
    await tabTo(page, /^ar-pending$/);
    // Remind while firing: from "Never" down to "every hour".
    await tabTo(page, /^ar-repeat$/);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.getByLabel('Remind while firing').inputValue(), '60');
    await tabTo(page, /^ar-channel-/);
    await page.keyboard.press('Space');
    await tabTo(page, /^Send test notification$/);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Pager: sent' }).waitFor();
    const test = await hook.inbox.next((h) => h.json?.type === 'alert.test');
    assert.ok(hook.verifies(test));
    await screenshot(page, 'alerts-02-form');
    await wideDark(page, 'rule form', 'alerts-02-form');
    await assertNarrowBothSchemes(page, 'rule form', 'alerts-02-form');
    await tabTo(page, /^Create rule$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Queue backing up' }).waitFor();
    ruleId = Number(/\/alerts\/(\d+)$/.exec(page.url())![1]);
    await hook.inbox.next((h) => h.json?.type === 'alert.firing' && h.json.data.rule.id === ruleId);
    // An hour on, as far as the rule knows: the next check reminds.
    await serviceDb.query(
      `UPDATE alert_rules SET last_notified_at = now() - interval '1 hour', next_eval_at = now() WHERE id = $1`,
      [ruleId],
    );
    await hook.inbox.next((h) => h.json?.data?.reminder === true && h.json.data.rule.id === ruleId);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Queue backing up' }).waitFor();
    const facts = page.locator('dl.alert-facts');
    await facts.locator('.state-badge').getByText('Firing').waitFor();
    await page.getByRole('table', { name: 'State history' }).getByText('value 120 is above 100').waitFor();
    await facts
      .getByText(/^every 1 h while firing, without data or in error; the next at the first check from /)
      .waitFor();
    await page.getByRole('table', { name: 'Notifications' }).getByText('firing (reminder)').waitFor();
    await assertAccessible(page, 'rule detail, firing');
    await assertCrumbAboveHeading(page, 'All alert rules');
    await screenshot(page, 'alerts-03-detail');
    await wideDark(page, 'rule detail', 'alerts-03-detail');
    await assertNarrowBothSchemes(page, 'rule detail', 'alerts-03-detail');

    await tabTo(page, /^silence-for$/);
    await page.keyboard.press('ArrowDown');
    await tabTo(page, /^Silence$/);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Silenced until' }).waitFor();
    await page.getByRole('button', { name: 'Lift the silence' }).waitFor();
    await assertAccessible(page, 'rule detail, silenced');

    await page.goto(`${s.url}/alerts`);
    const row = page.getByRole('row').filter({ hasText: 'Queue backing up' });
    await row.getByText('Firing').waitFor();
    await row.getByText(/silenced until/).waitFor();
    await assertAccessible(page, 'alerts list');
    await screenshot(page, 'alerts-01-list');
    await assertNarrowBothSchemes(page, 'alerts list', 'alerts-01-list');
  });

  test('a bad rule is refused with the service message, in an alert, and nothing is saved', async () => {
    const page = await pages.open(editor);
    await page.goto(`${s.url}/alerts/new`);
    await page.getByRole('heading', { level: 1, name: 'New alert rule' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Range');
    await page.getByLabel('Saved query', { exact: true }).selectOption({ label: 'Queue depth' });
    await page.getByLabel('Fires when the value is').selectOption('outside');
    await page.getByLabel('Lowest good value').fill('10');
    await page.getByLabel('Highest good value').fill('5');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be greater than' }).waitFor();
    await assertAccessible(page, 'rule form with an error');
  });

  test('an admin adds a channel with the keyboard and is shown its signing secret once', async () => {
    const page = await pages.open(admin);
    await page.goto(`${s.url}/alerts`);
    await page.getByRole('table', { name: 'Notification channels' }).waitFor();
    // The channels' list is set apart from the button above it (they touched).
    const gap = await gapBetween(
      page.getByRole('button', { name: 'Add channel' }),
      page.getByRole('table', { name: 'Notification channels' }),
    );
    assert.ok(gap >= 8, `${gap} px between Add channel and the list`);
    await tabTo(page, /^Add channel$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 3, name: 'Add a channel' }).waitFor();
    await tabTo(page, /^ch-name$/);
    await page.keyboard.type('Audit hook');
    await tabTo(page, /^ch-kind$/);
    await page.keyboard.press('ArrowDown');
    await tabTo(page, /^ch-url$/);
    await page.keyboard.type(hook.url);
    await assertAccessible(page, 'channel form');
    await tabTo(page, /^Add channel$/);
    await page.keyboard.press('Enter');
    const secret = page.locator('code.secret-value');
    await secret.waitFor();
    assert.match((await secret.textContent()) ?? '', /^whsec_/);
    await screenshot(page, 'alerts-04-channel-secret');
    await assertAccessible(page, 'channel secret');
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'Audit hook' }).waitFor();
    assert.equal(await page.locator('code.secret-value').count(), 0, 'shown once');
  });

  test('deleting a channel and a rule asks first, by keyboard: what goes with it; Escape and Cancel keep it', async () => {
    // A channel two rules notify, one of them notifying nothing else.
    const ops = await s.request('POST', '/api/v1/alert-channels', {
      as: admin,
      body: { name: 'Ops mail', kind: 'email', addresses: ['ops@acme.example'] },
    });
    assert.equal(ops.status, 201, JSON.stringify(ops.body));
    const query = (await s.request('GET', '/api/v1/queries', { as: editor })).body.items.find(
      (q: { name: string }) => q.name === 'Queue depth',
    );
    const pager = (await s.request('GET', '/api/v1/alert-channels', { as: admin })).body.items.find(
      (c: { name: string }) => c.name === 'Pager',
    );
    const rule = async (name: string, channelIds: number[]) => {
      const r = await s.request('POST', '/api/v1/alert-rules', {
        as: editor,
        body: {
          name,
          savedQueryId: query.id,
          condition: { op: 'above', threshold: 1000 },
          intervalMinutes: 60,
          channelIds,
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id as number;
    };
    const both = await rule('Queue very deep', [pager.id, ops.body.id]);
    const only = await rule('Queue on fire', [ops.body.id]);
    const channelThere = async () =>
      (await s.request('GET', '/api/v1/alert-channels', { as: admin })).body.items.some(
        (c: { id: number }) => c.id === ops.body.id,
      );
    /** The dialog open, its question and what it says; the focus on Cancel, the safe choice. */
    const opened = async (page: Page, title: string) => {
      const dialog = page.getByRole('dialog', { name: title });
      await dialog.waitFor();
      assert.equal((await focused(page)).text, 'Cancel', 'the dialog starts on Cancel');
      return ((await dialog.locator('.dialog-body').textContent()) ?? '').replace(/\s+/g, ' ');
    };

    const page = await pages.open(admin);
    await page.goto(`${s.url}/alerts`);
    await page.getByRole('row').filter({ hasText: 'Ops mail' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Queue on fire' }).waitFor();
    await tabTo(page, /^Delete Ops mail$/);
    await page.keyboard.press('Enter');
    const said = await opened(page, 'Delete the channel Ops mail?');
    assert.match(said, /2 alert rules notify it: Queue very deep, Queue on fire\./);
    assert.match(said, /Queue on fire notifies no other channel: it will notify no one\./);
    assert.match(said, /Its record of notifications sent goes with it\./);
    await assertAccessible(page, 'delete channel dialog');
    await screenshot(page, 'alerts-05-delete-channel');
    await wideDark(page, 'delete channel dialog', 'alerts-05-delete-channel');
    await assertNarrowBothSchemes(page, 'delete channel dialog', 'alerts-05-delete-channel');
    // Escape keeps it, and gives the focus back to its Delete.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).name, 'Delete Ops mail');
    assert.equal(await channelThere(), true, 'Escape deleted nothing');
    // Cancel keeps it.
    await page.keyboard.press('Enter');
    await opened(page, 'Delete the channel Ops mail?');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await channelThere(), true, 'Cancel deleted nothing');
    // Its own button deletes it: the rules stop notifying it, and the focus is not lost with its row.
    await page.keyboard.press('Enter');
    await opened(page, 'Delete the channel Ops mail?');
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).text, 'Delete channel');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Ops mail deleted.' }).waitFor();
    assert.equal(await channelThere(), false);
    assert.deepEqual((await s.request('GET', `/api/v1/alert-rules/${both}`, { as: editor })).body.channelIds, [
      pager.id,
    ]);
    assert.deepEqual((await s.request('GET', `/api/v1/alert-rules/${only}`, { as: editor })).body.channelIds, []);
    assert.equal((await focused(page)).text, 'Notification channels', "the focus goes to the channels' heading");

    // A rule, from its screen.
    const ruleThere = async () => (await s.request('GET', `/api/v1/alert-rules/${only}`, { as: editor })).status;
    const mine = await pages.open(editor);
    await mine.goto(`${s.url}/alerts/${only}`);
    await mine.getByRole('heading', { level: 1, name: 'Queue on fire' }).waitFor();
    await tabTo(mine, /^Delete rule$/);
    await mine.keyboard.press('Enter');
    const about = await opened(mine, 'Delete the alert rule Queue on fire?');
    assert.match(about, /Its state history and its record of notifications sent go with it/);
    assert.match(about, /the saved query Queue depth stays/);
    await assertAccessible(mine, 'delete rule dialog');
    await screenshot(mine, 'alerts-06-delete-rule');
    await wideDark(mine, 'delete rule dialog', 'alerts-06-delete-rule');
    await assertNarrowBothSchemes(mine, 'delete rule dialog', 'alerts-06-delete-rule');
    await mine.keyboard.press('Escape');
    await mine.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(mine)).text, 'Delete rule');
    assert.equal(await ruleThere(), 200, 'Escape deleted nothing');
    await mine.keyboard.press('Enter');
    await opened(mine, 'Delete the alert rule Queue on fire?');
    await mine.keyboard.press('Enter');
    await mine.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await ruleThere(), 200, 'Cancel deleted nothing');
    await mine.keyboard.press('Enter');
    await opened(mine, 'Delete the alert rule Queue on fire?');
    await mine.keyboard.press('Shift+Tab');
    await mine.keyboard.press('Enter');
    await mine.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    assert.equal(await ruleThere(), 404);
    await mine.getByRole('row').filter({ hasText: 'Queue very deep' }).waitFor();
    assert.equal(await mine.getByRole('row').filter({ hasText: 'Queue on fire' }).count(), 0, 'not listed any more');
    assert.equal((await focused(mine)).text, 'Alerts', "the focus on the list's heading");
  });

  test('a viewer reads the rules and their history but is offered no change', async () => {
    const page = await pages.open(viewer);
    await page.goto(`${s.url}/alerts`);
    await page.getByRole('link', { name: 'Queue backing up' }).click();
    await page.getByRole('heading', { level: 1, name: 'Queue backing up' }).waitFor();
    await page.getByRole('table', { name: 'State history' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Silence' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Edit rule' }).count(), 0);
    await page.goto(`${s.url}/alerts`);
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New alert rule' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Add channel' }).count(), 0);
    await assertAccessible(page, 'alerts list as a viewer');
  });
});
