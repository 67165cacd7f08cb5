import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { OWNER, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Provisioning (SCIM) in the console (Chromium, identity and the dashboard linked): a connection added shows
 * its token once with the base URL, and that token opens identity's /scim/v2; a new token, by keyboard alone, stops the
 * old one; revoking stops it too; reloading shows no token; adopting existing people, asked for when adding and changed
 * in a dialog, by keyboard alone. axe in light and dark, at 1280 and 320 px.
 */
describe('the console: SCIM provisioning', () => {
  let h: ConsoleHarness;

  before(async () => {
    h = await startConsole('webconscim');
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();
  /** What identity's SCIM answers this token: 200 for a live one, 401 otherwise. */
  const scimStatus = async (token: string) =>
    (
      await fetch(`${h.platform.url.identity}/scim/v2/ServiceProviderConfig`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).status;
  const shownToken = async (page: Page) => (await page.locator('.secret-once code.secret-value').textContent()) ?? '';

  test('add a connection: its token shown once opens SCIM; a new token stops the old one; revoke', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Provisioning (SCIM)');
    await page.getByRole('heading', { level: 1, name: 'Provisioning (SCIM)' }).waitFor();
    await page.getByText('No connection yet.').waitFor();
    await assertAccessible(page, 'provisioning, empty');

    await page.getByLabel('Directory').fill('Okta (Acme)');
    await page.getByRole('button', { name: 'Add connection' }).click();
    const once = page.getByRole('heading', { level: 2, name: 'The token of Okta (Acme), shown this once' });
    await once.waitFor();
    assert.equal((await focused(page)).label, 'The token of Okta (Acme), shown this once', 'the focus is on it');
    await statusSays(page, 'The connection Okta (Acme) is made.');
    const first = await shownToken(page);
    assert.match(first, /^scim_[A-Za-z0-9_-]{43}$/);
    assert.match(
      (await page.locator('.secret-once').textContent()) ?? '',
      new RegExp(`with the base URL ${h.platform.url.identity}/scim/v2`),
    );
    assert.equal(await scimStatus(first), 200, 'the token shown opens identity’s SCIM');
    const table = page.getByRole('table', { name: 'SCIM connections' });
    assert.deepEqual(await table.getByRole('rowheader').allTextContents(), ['Okta (Acme)']);
    assert.match((await table.getByRole('row').nth(1).textContent()) ?? '', new RegExp(`${first.slice(0, 13)}…`));
    assert.ok(!((await table.textContent()) ?? '').includes(first), 'the table shows the first characters only');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `provisioning with a new token, ${scheme}`);
      await h.screenshot(page, `scim-01-token-1280-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'provisioning with a new token', 'scim-01-token');

    // A new token, by keyboard alone: the dialog starts on Cancel.
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^New token for Okta \(Acme\)$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'A new token for Okta (Acme)?' });
    await dialog.waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    assert.match((await dialog.textContent()) ?? '', /the one the directory has stops working at once/);
    await assertAccessible(page, 'new token dialog');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Make a new token');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Okta (Acme) has a new token; the one before it no longer works.');
    await once.waitFor();
    const second = await shownToken(page);
    assert.notEqual(second, first);
    assert.equal(await scimStatus(first), 401, 'the old token stopped');
    assert.equal(await scimStatus(second), 200);

    await page.getByRole('button', { name: 'Revoke the token of Okta (Acme)' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke the token of Okta (Acme)?' });
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await statusSays(page, 'The token of Okta (Acme) is revoked: the directory can no longer provision.');
    await table.getByRole('cell', { name: /^revoked / }).waitFor();
    assert.equal(await scimStatus(second), 401, 'revoked');
    assert.equal(await once.count(), 0, 'no token shown after a revocation');
    await h.checkNarrow(page, 'provisioning, revoked', 'scim-02-revoked');

    const logged = (await h.identityApi('/admin-log?action=scim-connection')).body.items;
    assert.deepEqual(
      logged.map((e: any) => [e.action, e.actor.email]),
      [
        ['scim-connection.revoke', OWNER.email],
        ['scim-connection.rotate', OWNER.email],
        ['scim-connection.create', OWNER.email],
      ],
    );
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Provisioning (SCIM)' }).waitFor();
    await table.waitFor();
    assert.equal(await page.locator('.secret-once').count(), 0, 'a reload shows no token');
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('adopting existing people: a checkbox when adding, by keyboard; allowed and stopped in a dialog that says the risk', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Provisioning (SCIM)');
    const table = page.getByRole('table', { name: 'SCIM connections' });
    await table.waitFor();

    const box = page.getByRole('checkbox', { name: 'Adopt people who already have an account' });
    assert.equal(await box.isChecked(), false, 'off unless asked');
    const hint = await box.getAttribute('aria-describedby');
    assert.match((await page.locator(`#${hint}`).textContent()) ?? '', /Platform admins, deactivated people/);
    await page.getByLabel('Directory').fill('Entra ID (Acme)');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).tag, 'input', 'the checkbox follows the name');
    await page.keyboard.press('Space');
    assert.equal(await box.isChecked(), true);
    await h.checkNarrow(page, 'provisioning, adoption checked', 'scim-03-adopt-form');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Add connection');
    await page.keyboard.press('Enter');
    await statusSays(page, 'The connection Entra ID (Acme) is made.');
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Entra ID (Acme)' }) });
    await row.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    assert.equal(await box.isChecked(), false, 'the form is cleared');
    const made = (await h.identityApi('/scim-connections')).body.items.find((c: any) => c.name === 'Entra ID (Acme)');
    assert.equal(made.adopt_existing, true);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `provisioning, adopting, ${scheme}`);
      await h.screenshot(page, `scim-04-adopting-1280-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Stopped by keyboard alone: the dialog starts on Cancel.
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Stop adoption for Entra ID \(Acme\)$/);
    await page.keyboard.press('Enter');
    const stop = page.getByRole('dialog', { name: 'Stop Entra ID (Acme) adopting people?' });
    await stop.waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Stop adoption');
    await page.keyboard.press('Enter');
    await statusSays(page, 'Entra ID (Acme) no longer adopts people; those it adopted stay its own.');
    await row.getByRole('cell', { name: 'no', exact: true }).waitFor();

    // Allowed again: the dialog says what the directory may then do.
    await row.getByRole('button', { name: 'Allow adoption for Entra ID (Acme)' }).click();
    const allow = page.getByRole('dialog', { name: 'Let Entra ID (Acme) adopt people who already have an account?' });
    await allow.waitFor();
    assert.match((await allow.textContent()) ?? '', /change and deactivate each person it adopts/);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `allow adoption dialog, ${scheme}`);
      await h.screenshot(page, `scim-05-allow-dialog-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'allow adoption dialog', 'scim-05-allow-dialog');
    await allow.getByRole('button', { name: 'Allow adoption' }).click();
    await statusSays(page, 'Entra ID (Acme) adopts people who already have an account.');
    await row.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    assert.equal((await h.identityApi(`/scim-connections/${made.id}`)).body.adopt_existing, true);
    await h.checkNarrow(page, 'provisioning, adopting', 'scim-04-adopting');

    const logged = (await h.identityApi(`/admin-log?action=scim-connection.update&target_id=${made.id}`)).body.items;
    assert.deepEqual(
      logged.map((e: any) => [e.after, e.actor.email]),
      [
        [{ adopt_existing: true }, OWNER.email],
        [{ adopt_existing: false }, OWNER.email],
      ],
    );
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
