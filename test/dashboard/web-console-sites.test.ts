import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { page as htmlPage, serveSite, type TestSite } from '../audit/support.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Audits → Sites in the console (Chromium; identity, the dashboard and the audit service linked): add a site that
 * points at a local page (its errors beside its fields), run it now and watch its pages go by to its score, set a
 * weekly schedule, set notices by mail and webhook and send a test. A site named like markup stays text.
 */
describe('the console: audit sites', () => {
  let h: ConsoleHarness;
  let web: TestSite;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pages: Record<string, string | { body: string; holdUntil: Promise<void> }> = {
    '/': htmlPage('Home', '<a href="/a">A</a> <a href="/b">B</a>'),
    '/a': { body: htmlPage('A', '<img src="/x.png">'), holdUntil: held },
    '/b': htmlPage('B', '<p>B</p>'),
  };
  const mails: string[] = [];
  const hooks: IncomingHttpHeaders[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        done();
      });
    },
  });
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks.push(req.headers);
      res.writeHead(204).end();
    });
  });

  before(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    web = await serveSite(pages);
    h = await startConsole('webconsites', {
      services: ['audit'],
      env: {
        AUDIT_CONCURRENCY: '1',
        AUDIT_ALLOW_HOSTS: '127.0.0.1',
        AUDIT_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        AUDIT_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
        AUDIT_NETWORK_IDLE_MS: '1500',
        AUDIT_SETTLE_MS: '50',
        AUDIT_POLL_MS: '100',
      },
    });
  });
  after(async () => {
    release();
    await h?.close();
    await web?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  // A run audits pages in a real Chromium: on a loaded machine its end can take longer than a locator's usual 30 s.
  const statusSays = (page: Page, text: string | RegExp, timeout = 90_000) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor({ timeout });

  test('add a site, run it now and watch it to its score, schedule it, set notices and send a test', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Sites');
    await page.getByRole('heading', { level: 1, name: 'Sites' }).waitFor();
    await statusSays(page, 'No site yet.');
    await assertAccessible(page, 'no sites');
    await h.screenshot(page, 'sites-01-empty');

    await page.getByRole('link', { name: 'Add site' }).click();
    await page.getByRole('heading', { level: 1, name: 'Add a site' }).waitFor();
    await page.getByRole('button', { name: 'Add site' }).click();
    const name = page.getByLabel('Name');
    const url = page.getByLabel('URL', { exact: true });
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    // The focus moves once the errors are drawn: waited for, then said by the assertion if it never came.
    await page
      .locator('#site-name:focus')
      .waitFor({ timeout: 5_000 })
      .catch(() => {});
    assert.equal((await focused(page)).id, 'site-name', 'the first field in error has the focus');
    await page.getByText('Give the site a name.').waitFor();
    await assertAccessible(page, 'site form with errors');
    await h.screenshot(page, 'sites-02-form-errors');

    await name.fill(HOSTILE_NAME);
    await url.fill('http://10.0.0.1/');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByText(/url cannot be audited: refused: 10\.0\.0\.1 is a private address/).waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.match((await url.getAttribute('aria-describedby')) ?? '', /site-url-error/);
    assert.equal(await name.getAttribute('aria-invalid'), null, 'the name is fine now');
    await url.fill(`${web.origin}/`);
    await page.getByLabel(/Crawl the site/).check();
    await page.getByLabel('Page limit').fill('3');
    await page.getByLabel('Link depth').fill('1');
    await h.checkNarrow(page, 'site form', 'sites-03-form');
    await page.getByRole('button', { name: 'Add site' }).click();

    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await h.assertNothingRan(page);
    await assertAccessible(page, 'a new site');
    // What the run's live region says, each time it changes: the status only, not each page.
    await page.evaluate(`(() => {
      const said = [];
      globalThis.__said = said;
      const region = [...document.querySelectorAll('[role=status]')].find((e) =>
        e.closest('section')?.querySelector('h2')?.textContent?.includes('Latest run'),
      );
      new MutationObserver(() => said.push(region.textContent ?? '')).observe(region, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    })()`);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByText('Pages audited: 1 of 3 pages').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run now' }).isDisabled(), true, 'no second run meanwhile');
    await statusSays(page, 'The run is under way.');
    await h.screenshot(page, 'sites-04-running');
    release();
    await statusSays(page, /^The run completed: score \d+, 3 of 3 pages audited\.$/);
    const progress = page.locator('progress');
    assert.equal(await progress.getAttribute('value'), '3');
    assert.equal(await progress.getAttribute('max'), '3');
    const said = [...new Set((await page.evaluate('globalThis.__said')) as string[])].filter(Boolean);
    assert.ok(said.length <= 3, `the live region spoke at each status, not each page: ${JSON.stringify(said)}`);
    assert.equal(said.at(-1)?.startsWith('The run completed'), true);
    await assertAccessible(page, 'a completed run');

    // A bad cron expression is refused beside its field; a weekly schedule is saved with its next run.
    const runs = page.getByLabel('Runs', { exact: true });
    await runs.selectOption('cron');
    const cron = page.getByLabel('Cron expression');
    await cron.fill('61 * * * *');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText(/not a five-field cron expression/).waitFor();
    assert.equal(await cron.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'schedule error');
    await runs.selectOption('weekly');
    await page.getByLabel('Day').selectOption('Monday');
    await page.getByLabel('Time', { exact: true }).fill('09:30');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    // In the schedule's zone, named: the browser here is in UTC, the schedule in Paris.
    await statusSays(page, /^Schedule saved\. Next run: .*\b9:30\b.*\(Europe\/Paris\)\.$/);

    await page.getByLabel('Email addresses').fill('ops@example.com');
    await page.getByLabel('Webhook URL').fill('http://10.0.0.1/hook');
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByText(/webhookUrl cannot be reached: refused/).waitFor();
    assert.equal(await page.getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true');
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await page.getByLabel('Webhook URL').fill(hookUrl);
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByRole('heading', { name: "The webhook's signing secret" }).waitFor();
    assert.match((await page.locator('.secret-value').textContent()) ?? '', /^whsec_/);
    await page.getByRole('button', { name: 'Send a test' }).click();
    await statusSays(page, `Webhook ${hookUrl}: delivered`);
    await statusSays(page, 'Mail to ops@example.com: delivered');
    assert.equal(hooks.length, 1);
    assert.match(String(hooks[0]!['webhook-signature']), /^v1,/);
    assert.equal(mails.length, 1);
    await page.getByText('No notice sent yet: a run is compared with the one before it.').waitFor();
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'site page', 'sites-05-site');
    await h.screenshot(page, 'sites-06-site-wide');

    const runsLink = page.getByRole('link', { name: 'All runs of this site' });
    assert.equal(await runsLink.getAttribute('href'), `/audits/runs?${new URLSearchParams({ url: `${web.origin}/` })}`);
    // It sits among the site's buttons as one of them, as tall as Edit site and Delete site, not as a bare link.
    const heights = await Promise.all(
      [page.getByRole('link', { name: 'Edit site' }), runsLink, page.getByRole('button', { name: 'Delete site' })].map(
        async (l) => Math.round((await l.boundingBox())?.height ?? 0),
      ),
    );
    assert.deepEqual(heights, Array(3).fill(heights[2]), 'the site actions are as tall as each other');

    await page.getByRole('link', { name: 'Sites', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Sites' }).waitFor();
    await statusSays(page, '1 site.');
    const row = page.getByRole('row').nth(1);
    assert.equal(await row.getByRole('rowheader').textContent(), HOSTILE_NAME);
    assert.match((await row.textContent()) ?? '', /Completed, /);
    assert.match((await row.textContent()) ?? '', /Mondays at 09:30 \(Europe\/Paris\)/);
    assert.equal(await row.getByRole('link', { name: `${web.origin}/` }).getAttribute('rel'), 'noopener noreferrer');
    await h.assertNothingRan(page);
    await h.checkNarrow(page, 'sites list', 'sites-07-list');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: open a site from the list, run it now (a worse run: its notices listed), save its schedule, send a test, edit and save it', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/audits/sites`);
    await statusSays(page, '1 site.');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, new RegExp(`^${HOSTILE_NAME.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    // A new critical failure on a page: this run is worse than the last, and its notices go out.
    pages['/b'] = htmlPage('B', '<button></button>');
    await tabTo(page, /^Run now$/);
    await page.keyboard.press('Enter');
    await statusSays(page, /^The run completed: score \d+, 3 of 3 pages audited\.$/);
    // The notices are decided and sent by the service after the run; the screen shows them when it is opened.
    const notices = page.getByRole('table', { name: "The site's latest notices, newest first" });
    const delivered = notices.getByRole('cell', { name: 'Delivered after 1 try' });
    for (;;) {
      await page.reload();
      await notices.or(page.getByText('No notice sent yet')).waitFor();
      if ((await delivered.count()) === 2) break;
    }
    await notices.getByRole('cell', { name: 'Mail to ops@example.com' }).waitFor();
    assert.ok(mails.some((m) => /Accessibility regression on/.test(m)));
    assert.equal(hooks.length, 2, 'the test, then the notice');
    await assertAccessible(page, 'recent notices');
    await h.screenshot(page, 'sites-08-notices');
    const mailsBefore = mails.length;
    await page.locator('main h1').focus();
    await tabTo(page, /^Save schedule$/);
    await page.keyboard.press('Enter');
    await statusSays(page, /^Schedule saved\. Next run: /);
    await tabTo(page, /^Send a test$/);
    await page.keyboard.press('Enter');
    await statusSays(page, 'Mail to ops@example.com: delivered');
    assert.equal(mails.length, mailsBefore + 1, 'the test went by mail again');
    await page.locator('main h1').focus();
    await tabTo(page, /^Edit site$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Edit site' }).waitFor();
    await tabTo(page, /^Save site$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
