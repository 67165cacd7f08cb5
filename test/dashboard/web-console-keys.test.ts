import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { OWNER, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Signing keys in the console (Chromium, identity and the dashboard linked): the key that signs and the
 * published ones, the JWKS link, and a rotation confirmed in a dialog — the new key published at once (identity's JWKS
 * has it) and signing after the wait, the old one signing until then; recorded with the owner's name.
 */
describe('the console: identity signing keys', () => {
  let h: ConsoleHarness;

  before(async () => {
    h = await startConsole('webconkeys');
  });
  after(async () => h?.close());

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();
  const jwksKids = async () =>
    (
      (await (await fetch(`${h.platform.url.identity}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys.map((k) => k.kid);

  test('see which key signs and which are published; rotate: the new key is published at once', async () => {
    const page = await h.open();
    await h.signIn(page);
    await openFromNav(page, 'Signing keys');
    await page.getByRole('heading', { level: 1, name: 'Signing keys' }).waitFor();
    await statusSays(page, '1 published key, 1 in all.');
    const table = page.getByRole('table', { name: 'Signing keys, newest first' });
    const [oldKid] = await jwksKids();
    assert.deepEqual(await table.getByRole('rowheader').allTextContents(), [oldKid]);
    await table.getByRole('cell', { name: 'Signs ID tokens now' }).waitFor();
    const jwks = page.getByRole('link', { name: `${h.platform.url.identity}/.well-known/jwks.json` });
    assert.equal(await jwks.getAttribute('rel'), 'noopener noreferrer');
    await assertAccessible(page, 'signing keys');
    await h.screenshot(page, 'keys-01-list');

    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing key?' });
    assert.match((await dialog.textContent()) ?? '', /signs ID tokens in about 60 seconds, once every instance/);
    await assertAccessible(page, 'rotate dialog');
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    await statusSays(page, /^New key \S+ is published; it signs ID tokens from /);
    const kids = await table.getByRole('rowheader').allTextContents();
    assert.equal(kids.length, 2);
    assert.equal(kids[1], oldKid);
    assert.deepEqual((await jwksKids()).sort(), [...kids].sort(), 'identity publishes both');
    const rows = await table.getByRole('row').allTextContents();
    assert.match(rows[1]!, /Published; signs from/);
    assert.match(rows[2]!, /Signs ID tokens now/);
    const logged = (await h.identityApi('/admin-log?action=signing-key.rotate')).body.items;
    assert.deepEqual(
      logged.map((e: any) => [e.actor.email, e.target.id]),
      [[OWNER.email, kids[0]]],
    );
    assert.equal((await focused(page)).label, 'Rotate signing key', 'the focus is back on the button');
    await h.checkNarrow(page, 'signing keys', 'keys-02');
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });

  test('keyboard only: the rotate dialog opens from the keyboard and Escape leaves it without rotating', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/signing-keys`);
    await statusSays(page, /published keys?, 2 in all\./);
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Rotate signing key$/);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    assert.equal((await focused(page)).label, 'Cancel');
    // Tab wraps inside the dialog: past Cancel, its last control, it comes back to Rotate, never to the browser's own.
    for (const [i, expected] of ['Rotate', 'Cancel', 'Rotate'].entries()) {
      await page.keyboard.press('Tab');
      const inDialog = await page.evaluate(`Boolean(document.activeElement?.closest('dialog[open]'))`);
      assert.equal(inDialog, true, `Tab ${i + 1} stays in the dialog`);
      assert.equal((await focused(page)).label, expected);
    }
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).label, 'Cancel', 'Shift+Tab wraps back to Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Rotate signing key');
    assert.equal((await jwksKids()).length, 2, 'nothing was rotated');
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
