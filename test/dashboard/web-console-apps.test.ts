import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { identityRuntime } from '../../src/identity/app.ts';
import { startLinkedPlatform, type LinkedPlatform } from '../support/linked-platform.ts';
import { assertAccessible } from '../support/axe.ts';
import {
  HOSTILE_NAME,
  HOSTILE_URL,
  assertNarrowBothSchemes,
  assertNothingRan,
  focused,
  gapBetween,
  identityCaller,
  makeOwner,
  openPage,
  screenshot,
  signIn,
  openFromNav,
} from '../support/console-browser.ts';

/** An https logo address (identity accepts only those) whose text is built to break out of an attribute. */
const HOSTILE_LOGO = 'https://logo.example/"><img src=x onerror=window.__pwned=2>.png';

/**
 * Identity → Applications in the console (issue 25), on identity and the dashboard linked as `platform start` links
 * them: the owner registers an app in the browser (its secret shown once, copied), edits it, rotates and revokes its
 * secrets in dialogs that hold and return the focus, deactivates and reactivates it, and reads its token activity.
 * Names, descriptions and URLs built to run are shown as text.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const SVG_NAME = '<svg onload=window.__pwned=4>';

describe('the console: registering and managing an application', () => {
  let p: LinkedPlatform;
  let browser: Browser;
  const problems: string[] = [];
  const identityApi = identityCaller(() => p, ADMIN_TOKEN);
  const basic = (clientId: string, secret: string) =>
    `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
  const token = (clientId: string, secret: string) =>
    fetch(`${p.url.identity}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(clientId, secret),
      },
      body: 'grant_type=client_credentials',
    });
  /** Whether a secret authenticates its web app: revocation answers 200 to an authenticated client, 401 otherwise. */
  const authenticates = async (clientId: string, secret: string) =>
    (
      await fetch(`${p.url.identity}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
        body: 'token=nothing',
      })
    ).status;

  before(async () => {
    p = await startLinkedPlatform('webconsoleapps', ['identity', 'dashboard'], { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    await makeOwner(p);
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor();

  test('register a web app with hostile text: its secret shown once and copied; then edit, rotate, revoke, deactivate', async () => {
    const page = await openPage(browser, problems, { clipboardOrigin: p.url.dashboard });
    await signIn(page, p);
    await openFromNav(page, 'Applications');
    await page.getByRole('link', { name: 'Register an application' }).click();
    await page.getByRole('heading', { level: 1, name: 'Register an application' }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Web application' }).isChecked(), true);
    // A machine asks for no redirect URIs; a web app does.
    await page.getByRole('radio', { name: 'Machine' }).check();
    assert.equal(await page.getByLabel('Redirect URIs').count(), 0);
    await page.getByRole('radio', { name: 'Web application' }).check();
    await page.getByLabel('Name', { exact: true }).fill(HOSTILE_NAME);
    await page.getByLabel('Description').fill('<script>window.__pwned=3</script>');
    await page.getByLabel('Logo URL').fill(HOSTILE_URL);
    await page.getByLabel('Redirect URIs').fill('http://shop.example/callback');
    await assertAccessible(page, 'the registration form');
    await assertNarrowBothSchemes(page, 'the registration form', '10-app-new');
    // Register and Cancel (a link drawn as a button) stand level and as tall as each other.
    const [register, cancel] = await Promise.all(
      [page.getByRole('button', { name: 'Register' }), page.getByRole('link', { name: 'Cancel' })].map((l) =>
        l.boundingBox(),
      ),
    );
    assert.deepEqual(
      [Math.round(cancel?.y ?? -1), Math.round(cancel?.height ?? -1)],
      [Math.round(register?.y ?? -2), Math.round(register?.height ?? -2)],
      'Cancel level with Register',
    );
    // Identity's refusals are said in the page, the form kept: a logo that is no https address, then the redirect.
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('alert').filter({ hasText: 'logo_url must be an absolute https URL' }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), HOSTILE_NAME);
    await page.getByLabel('Logo URL').fill(HOSTILE_LOGO);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('alert').filter({ hasText: 'must use https' }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), HOSTILE_NAME);
    await page.getByLabel('Redirect URIs').fill('https://shop.example/callback\n\nhttps://shop.example/other');
    await page.getByRole('button', { name: 'Register' }).click();

    await page.getByRole('heading', { level: 1, name: `${HOSTILE_NAME} is registered` }).waitFor();
    const secret = ((await page.locator('.secret-value').textContent()) ?? '').trim();
    assert.match(secret, /^cs_[A-Za-z0-9_-]{40,}$/);
    assert.deepEqual(await focused(page), {
      tag: 'h2',
      id: await page.getByRole('heading', { name: 'Its client secret, shown this once' }).getAttribute('id'),
      text: 'Its client secret, shown this once',
      name: '',
      label: 'Its client secret, shown this once',
      inDialog: false,
    });
    await page.getByRole('button', { name: `Copy the client secret of ${HOSTILE_NAME}` }).click();
    await statusSays(page, 'Copied.');
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await assertNothingRan(page);
    await assertAccessible(page, 'registered, the secret shown');
    await screenshot(page, '11-app-registered');
    const clientId = ((await page.locator('dd code').first().textContent()) ?? '').trim();
    assert.equal(await authenticates(clientId, secret), 200, 'the secret shown works');

    // The app's page: everything typed is text; the secret is not there any more.
    await page.getByRole('link', { name: `Open ${HOSTILE_NAME}` }).click();
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is never shown again');
    assert.match((await page.locator('main').textContent()) ?? '', /<script>window\.__pwned=3<\/script>/);
    assert.match((await page.locator('.facts').textContent()) ?? '', /logo\.example\/"><img src=x onerror=/);
    await assertNothingRan(page);
    const secrets = page.getByRole('table', { name: /Client secrets of/ });
    assert.deepEqual(await secrets.getByRole('rowheader').allTextContents(), [`${secret.slice(0, 9)}…`]);
    await assertAccessible(page, "the app's page");
    // Each section's intro is set apart from the button under it (they touched).
    for (const [intro, button] of [
      [/^Identity keeps only each secret's fingerprint/, 'Rotate the secret'],
      [/^Tokens are kept until 30 days/, 'Refresh the activity'],
    ] as const) {
      const gap = await gapBetween(page.getByText(intro), page.getByRole('button', { name: button }));
      assert.ok(gap >= 8, `${gap} px between the intro and ${button}`);
    }
    await screenshot(page, '12-app-page');

    // Edit: a shorter access token, one scope fewer, sign-in by emailed code on; saved, and identity has it.
    await page.getByLabel('Access token').fill('120');
    await page.getByRole('checkbox', { name: /^email/ }).uncheck();
    await page.getByRole('checkbox', { name: /^Sign-in by emailed code/ }).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await statusSays(page, `The settings of ${HOSTILE_NAME} are saved.`);
    const appId = new URL(page.url()).pathname.split('/').at(-1)!;
    const stored = await identityApi(`/applications/${appId}`);
    assert.equal(stored.body.access_token_ttl, 120);
    assert.equal(stored.body.email_code_sign_in, true);
    assert.deepEqual(stored.body.allowed_scopes, ['openid', 'profile', 'offline_access']);
    assert.deepEqual(stored.body.redirect_uris, ['https://shop.example/callback', 'https://shop.example/other']);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await statusSays(page, 'Nothing changed: there was nothing to save.');

    // Rotate, by keyboard: the dialog opens on the choice, Tab stays inside it, the old secret stops now.
    await page.getByRole('button', { name: 'Rotate the secret' }).focus();
    await page.keyboard.press('Enter');
    const rotate = page.getByRole('dialog', { name: `Rotate the secret of ${HOSTILE_NAME}` });
    await rotate.waitFor();
    assert.equal((await focused(page)).inDialog, true);
    assert.equal(
      await page.evaluate('document.activeElement.labels[0].textContent'),
      'Keep working for a day, then stop',
    );
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      assert.equal((await focused(page)).inDialog, true, `Tab ${i + 1} stays in the dialog`);
    }
    await assertAccessible(page, 'the rotate dialog');
    await screenshot(page, '13-app-rotate-dialog');
    await rotate.getByRole('radio', { name: 'Stop now' }).check();
    await rotate.getByRole('button', { name: 'Make a new secret' }).press('Enter');
    await page.getByRole('heading', { name: 'The new client secret, shown this once' }).waitFor();
    await statusSays(page, 'A new secret is made; the 1 before it no longer work.');
    const second = ((await page.locator('.secret-value').textContent()) ?? '').trim();
    assert.notEqual(second, secret);
    assert.equal(await authenticates(clientId, secret), 401);
    assert.equal(await authenticates(clientId, second), 200);
    const rows = secrets.getByRole('row');
    await rows.filter({ hasText: 'revoked (rotated)' }).waitFor();

    // Revoke the new one: Escape closes the dialog and gives the focus back; then with a reason.
    const revokeButton = page.getByRole('button', { name: `Revoke the secret ${second.slice(0, 9)}…` });
    await revokeButton.click();
    const revoke = page.getByRole('dialog', { name: `Revoke the secret ${second.slice(0, 9)}…?` });
    await revoke.waitFor();
    assert.equal((await focused(page)).id, 'revoke-reason');
    await page.keyboard.press('Escape');
    await revoke.waitFor({ state: 'hidden' });
    assert.equal((await focused(page)).name, `Revoke the secret ${second.slice(0, 9)}…`);
    await revokeButton.click();
    await page.getByLabel('Why').fill('<b>leaked</b> in a log');
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await statusSays(page, `The secret ${second.slice(0, 9)}… is revoked: it no longer works.`);
    await rows.filter({ hasText: 'revoked (<b>leaked</b> in a log)' }).waitFor();
    assert.equal(await authenticates(clientId, second), 401);

    // Deactivate in a dialog; reactivate.
    await page.getByRole('button', { name: `Deactivate ${HOSTILE_NAME}` }).click();
    const off = page.getByRole('dialog', { name: `Deactivate ${HOSTILE_NAME}?` });
    assert.equal((await focused(page)).text, 'Cancel', 'the dialog opens on Cancel, not on the action');
    await off.getByRole('button', { name: 'Deactivate' }).click();
    await statusSays(page, /is deactivated: it gets no tokens/);
    assert.equal((await identityApi(`/applications/${appId}`)).body.active, false);
    await page.getByRole('button', { name: `Reactivate ${HOSTILE_NAME}` }).click();
    await statusSays(page, /is active again/);
    assert.equal((await identityApi(`/applications/${appId}`)).body.active, true);
    // Each change the owner made is on record under her name.
    const changes = await identityRuntime(p.app.identity!).db.query<{ action: string; actor_kind: string }>(
      'SELECT action, actor_kind FROM admin_changes WHERE target_id = $1 ORDER BY id',
      [appId],
    );
    assert.deepEqual(
      changes.rows.map((c) => `${c.actor_kind} ${c.action}`),
      [
        'person application.create',
        'person application.update',
        'person application.secret_rotate',
        'person application.secret.revoke',
        'person application.deactivate',
        'person application.activate',
      ],
    );

    await assertNarrowBothSchemes(page, "the app's page", '14-app-page');
    await assertNothingRan(page);
    assert.deepEqual(problems, [], 'no script error, CSP violation or dialog');
    await page.context().close();
  });

  test("a machine's token activity, a public app without secrets, and an address that names no app", async () => {
    const made = await identityApi('/applications', { method: 'POST', body: { name: SVG_NAME, app_type: 'machine' } });
    assert.equal(made.status, 201);
    const { application: machine, client_secret: secret } = made.body;
    for (let i = 0; i < 2; i++) assert.equal((await token(machine.client_id, secret)).status, 200);
    const spa = await identityApi('/applications', {
      method: 'POST',
      body: { name: 'Storefront', app_type: 'spa', redirect_uris: ['https://shop.example/cb'] },
    });

    const page = await openPage(browser, problems);
    await signIn(page, p);
    await page.goto(`${p.url.dashboard}/identity/applications/${machine.id}`);
    await page.getByRole('heading', { level: 1, name: SVG_NAME }).waitFor();
    const activity = page.getByRole('table', { name: `Token activity of ${SVG_NAME}, newest first` });
    await activity.waitFor();
    const cells = await activity
      .getByRole('row')
      .evaluateAll((rows) => rows.slice(1).map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    assert.deepEqual(cells, [
      [
        'access token (client credentials) issued',
        'client credentials',
        `${SVG_NAME} (${machine.client_id}), the app itself`,
        'none',
        '127.0.0.1',
      ],
      [
        'access token (client credentials) issued',
        'client credentials',
        `${SVG_NAME} (${machine.client_id}), the app itself`,
        'none',
        '127.0.0.1',
      ],
    ]);
    await statusSays(page, 'All 2 events shown.');
    // A third token: Refresh shows it.
    assert.equal((await token(machine.client_id, secret)).status, 200);
    await page.getByRole('button', { name: 'Refresh the activity' }).click();
    await statusSays(page, 'All 3 events shown.');
    await assertNothingRan(page);
    await assertAccessible(page, 'the activity');
    await screenshot(page, '15-app-activity');

    await page.goto(`${p.url.dashboard}/identity/applications/${spa.body.application.id}`);
    await page.getByRole('heading', { level: 1, name: 'Storefront' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Client secrets' }).count(), 0, 'a public app has none');
    await page.getByText('No token was issued to Storefront yet.').waitFor();

    await page.goto(`${p.url.dashboard}/identity/applications/not-an-app`);
    await page.getByRole('heading', { level: 1, name: 'No such application' }).waitFor();
    await assertAccessible(page, 'no such application');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
