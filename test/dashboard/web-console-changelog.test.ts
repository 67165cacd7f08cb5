import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { HOSTILE_NAME, OWNER, startConsole, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Change log in the console (Chromium, identity and the dashboard linked): a change the owner makes in the
 * console appears with their name; changes by the admin token, the first run's rights and hostile names are listed as
 * text; the filters (who, action, target, text, time) and the pages work; a bad time range is said in the page.
 */
describe('the console: identity change log', () => {
  let h: ConsoleHarness;

  before(async () => {
    h = await startConsole('webconlog');
    const org = await h.identityApi('/organizations', {
      method: 'POST',
      body: { name: HOSTILE_NAME, slug: 'hostile' },
    });
    assert.equal(org.status, 201);
    const invite = await h.identityApi(`/organizations/${org.body.id}/invites`, {
      method: 'POST',
      body: { email: 'bob@acme.example', message: '<script>window.__pwned=3</script>' },
    });
    assert.equal(invite.status, 201);
    // Enough changes for a second page of 25.
    for (let i = 0; i < 24; i++) {
      const made = await h.identityApi('/applications', {
        method: 'POST',
        body: { name: `App ${i}`, app_type: 'machine' },
      });
      assert.equal(made.status, 201);
    }
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();

  test('a change made in the console is logged with its person; filters, pages, hostile text and errors', async () => {
    const page = await h.open();
    await h.signIn(page);
    // A change through the console: the owner creates an organization.
    await openFromNav(page, 'Organizations');
    await page.getByRole('button', { name: 'New organization' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Umbrella');
    await page.getByRole('dialog').getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Umbrella' }).waitFor();

    await openFromNav(page, 'Change log');
    await page.getByRole('heading', { level: 1, name: 'Change log' }).waitFor();
    await statusSays(page, 'Page 1: 25 changes, more on the next page.');
    const table = page.getByRole('table', { name: 'Changes at identity, newest first' });
    const newest = table.getByRole('row').nth(1);
    assert.match((await newest.textContent()) ?? '', new RegExp(`${OWNER.name}.*organization\\.create.*Umbrella`));
    await assertAccessible(page, 'change log');
    await h.screenshot(page, 'log-01-list');

    // The next page goes back to the first run: the owner's console rights, set by the platform.
    await page.getByRole('button', { name: 'Next page' }).click();
    await statusSays(page, /^Page 2: \d+ changes?\.$/);
    const older = (await table.textContent()) ?? '';
    assert.match(older, /the platform \(first run\).*console_rights\.set.*rights: \(none\) → identity/);
    assert.match(older, /<img src=x onerror=window\.__pwned=1>/);
    assert.match(older, /message: <script>window\.__pwned=3<\/script>/);
    await h.assertNothingRan(page);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await statusSays(page, 'Page 1: 25 changes, more on the next page.');

    // Who: part of the owner's email, in another case, with the action's beginning (her sign-ins are on the record too).
    await page.getByLabel('Who').fill('OLGA@');
    await page.getByLabel('Action').fill('organization');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, 'Page 1: 1 change.');
    await page.getByLabel('Action').fill('signin');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, /^Page 1: [1-9]\d* changes?\.$/);
    assert.match((await table.textContent()) ?? '', /signin\.succeed/);
    // Action by its beginning, with who cleared.
    await page.getByLabel('Who').fill('');
    await page.getByLabel('Action').fill('organization.invite');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, 'Page 1: 1 change.');
    assert.match(
      (await table.textContent()) ?? '',
      /the admin token.*organization\.invite\.create.*email: bob@acme\.example/,
    );
    // Target and text.
    await page.getByLabel('Action').fill('');
    await page.getByLabel('Target', { exact: true }).selectOption('organization');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, 'Page 1: 3 changes.');
    await page.getByLabel('Text in the change').fill('App 1');
    await page.getByLabel('Target', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, /^Page 1: 1[01] changes\.$/);
    // Time: a range after now is empty; an inverted one is said in the page, not sent.
    await page.getByLabel('Text in the change').fill('');
    await page.getByLabel('From').fill('2999-01-01T00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, 'No change matches.');
    await page.getByLabel('Until').fill('2998-01-01T00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').filter({ hasText: '“From” must be earlier than “Until”.' }).waitFor();
    await assertAccessible(page, 'change log with an error');
    await page.getByRole('button', { name: 'Clear' }).click();
    await statusSays(page, 'Page 1: 25 changes, more on the next page.');
    await h.checkNarrow(page, 'change log', 'log-02');
    // A change's fields are read a few words a line at 320 px, not one: the column is wider than the others' 7rem.
    await page.setViewportSize({ width: 320, height: 800 });
    const change = page.getByRole('table').locator('tbody tr td:last-child').first();
    const width = (await change.boundingBox())?.width ?? 0;
    assert.ok(width >= 250, `the change column is ${width} px wide at 320 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: from the skip link to a search by actor, answered in the status line', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/change-log`);
    await page.getByRole('heading', { level: 1, name: 'Change log' }).waitFor();
    await statusSays(page, /^Page 1: /);
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'log-actor');
    await page.keyboard.type('admin-token');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Page 1: 25 changes, more on the next page.');
    const who = await page.getByRole('table').getByRole('row').allTextContents();
    assert.ok(
      who.slice(1).every((row) => row.includes('the admin token')),
      who.join('\n'),
    );
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
