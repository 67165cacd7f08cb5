import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/axe.ts';
import { OWNER, startConsole, tabTo, type ConsoleHarness } from '../support/console-screens.ts';
import { focused, openFromNav } from '../support/console-browser.ts';

/**
 * Identity → Signing keys in the console (Chromium, identity and the dashboard linked): the key that signs and the
 * published ones, the JWKS link, and a rotation confirmed in a dialog — the new key published at once (identity's JWKS
 * has it) and signing after the wait, the old one signing until then; recorded with the owner's name. The emergency
 * rotation for a compromised key, by keyboard alone: its dialog says the cost, Escape leaves it with nothing rotated,
 * confirming makes the new key sign at once and retires the rest (still published).
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

  test('keyboard only: rotate immediately for a compromised key; the new key signs at once', async () => {
    const page = await h.open();
    await h.signIn(page);
    await page.goto(`${h.platform.url.dashboard}/identity/signing-keys`);
    await statusSays(page, /published keys?, 2 in all\./);
    const table = page.getByRole('table', { name: 'Signing keys, newest first' });
    const before = await table.getByRole('rowheader').allTextContents();
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await tabTo(page, /^Rotate immediately \(key compromised\)$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing key immediately?' });
    await dialog.waitFor();
    assert.equal((await focused(page)).label, 'Cancel', 'the safe choice first');
    const said = (await dialog.textContent()) ?? '';
    assert.match(said, /A new key signs ID tokens from now on, without the usual wait of about 60 seconds/);
    assert.match(said, /Apps that cached the published keys \(the JWKS\) may reject the ID tokens the new key signs/);
    assert.match(said, /stays published until the ID tokens it signed have expired, so those tokens keep verifying/);
    assert.match(
      said,
      /The key waiting to sign from the last rotation is retired as well/,
      'the staged key is pending',
    );
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `rotate immediately dialog, ${scheme}`);
      await h.screenshot(page, `keys-03-immediately-dialog-1280-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'rotate immediately dialog', 'keys-03-immediately-dialog');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Rotate immediately (key compromised)');
    assert.equal((await jwksKids()).length, 2, 'Escape rotated nothing');
    assert.deepEqual(await table.getByRole('rowheader').allTextContents(), before);

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Rotate now');
    await page.keyboard.press('Enter');
    await statusSays(
      page,
      /^New key \S+ signs ID tokens now\. Apps that cached the JWKS may reject them until they fetch it again\.$/,
    );
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await focused(page)).label, 'Rotate immediately (key compromised)', 'the focus is back');
    await table.getByRole('rowheader').nth(2).waitFor();
    const kids = await table.getByRole('rowheader').allTextContents();
    assert.deepEqual(kids.slice(1), before, 'one new key, newest first');
    const status = (await page.getByRole('status').textContent()) ?? '';
    assert.ok(status.includes(kids[0]!), 'the status names the new key');
    const rows = await table.getByRole('row').allTextContents();
    assert.match(rows[1]!, /Signs ID tokens now/, 'the new key signs at once');
    assert.match(rows[2]!, /Retired .*; published for verification/, 'the staged key is retired with the old one');
    assert.match(rows[3]!, /Retired .*; published for verification/);
    assert.deepEqual((await jwksKids()).sort(), [...kids].sort(), 'identity publishes all three');
    const logged = (await h.identityApi('/admin-log?action=signing-key.rotate')).body.items;
    assert.deepEqual([logged[0].actor.email, logged[0].target.id], [OWNER.email, kids[0]]);
    assert.match(JSON.stringify(logged[0]), /"immediately":true/, 'recorded as immediate');

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `signing keys after rotating immediately, ${scheme}`);
      await h.screenshot(page, `keys-04-immediately-1280-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await h.checkNarrow(page, 'signing keys after rotating immediately', 'keys-04-immediately');
    await h.assertNothingRan(page);
    assert.deepEqual(h.problems, []);
    await page.context().close();
  });
});
