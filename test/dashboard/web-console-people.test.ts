import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { identityRuntime } from '../../src/identity/app.ts';
import { recordConsent } from '../../src/identity/consent/store.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { linkToPerson } from '../../src/identity/social/account-links.ts';
import { startLinkedPlatform, type LinkedPlatform } from '../support/linked-platform.ts';
import { assertAccessible } from '../support/axe.ts';
import { codeFlow } from '../support/code-flow.ts';
import { TestBrowser } from '../identity/browser.ts';
import { freshCode } from '../identity/mfa-support.ts';
import {
  HOSTILE_NAME,
  assertNarrowBothSchemes,
  assertNothingRan,
  focused,
  identityCaller,
  makeOwner,
  openPage,
  screenshot,
  signIn,
  openFromNav,
} from '../support/console-browser.ts';

/**
 * Identity → People in the console (issue 25), on identity and the dashboard linked as `platform start` links them: the
 * owner finds a person, sees their profile, credentials by kind (no secret), linked account, sessions, consents and
 * organizations, gives and takes a console right, ends a session, withdraws a consent, resets their second factors and
 * signs them out everywhere (dialogs), deactivates and reactivates them, and gives someone without a password a
 * password link shown once. Names a person, an app, an organization and a provider typed are built to run: text only.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const CALLBACK = 'http://localhost:8765/callback';
const MALLORY = { email: 'mallory@acme.example', password: 'mallory chose this passphrase' };
const HOSTILE_APP = '<script>window.__pwned=7</script>';
const HOSTILE_ORG = '<iframe src=javascript:window.__pwned=6>';
const HOSTILE_EMAIL = '<svg onload=window.__pwned=5>@x.example';

describe('the console: finding and managing a person', () => {
  let p: LinkedPlatform;
  let browser: Browser;
  let mallory: string;
  let pat: string;
  const problems: string[] = [];
  const identityApi = identityCaller(() => p, ADMIN_TOKEN);

  before(async () => {
    p = await startLinkedPlatform('webconsolepeople', ['identity', 'dashboard'], { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    await makeOwner(p);
    const { db, secretKey } = identityRuntime(p.app.identity!);
    mallory = (
      await createHuman(db, {
        email: MALLORY.email,
        displayName: HOSTILE_NAME,
        password: MALLORY.password,
        emailVerified: true,
      })
    ).id;
    // Two browsers signed in through a first-party app (each a session, an access and a refresh token).
    const portal = await identityApi('/applications', {
      method: 'POST',
      body: { name: 'Portal', app_type: 'spa', redirect_uris: [CALLBACK], first_party: true },
    });
    for (let i = 0; i < 2; i++) {
      const got = await codeFlow(new TestBrowser(), {
        issuer: p.url.identity!,
        clientId: portal.body.application.client_id,
        redirectUri: CALLBACK,
        scope: 'openid profile offline_access',
        credentials: MALLORY,
      });
      assert.equal(got.status, 200, JSON.stringify(got.tokens));
    }
    // Then her second factors (the sign-ins above would have asked for them): an authenticator app and a passkey.
    const pending = await pendingEnrollment(db, secretKey, mallory, MALLORY.email, 'localhost');
    assert.ok(
      (await confirmEnrollment(db, secretKey, mallory, pending.credentialId, freshCode(pending.secret, -1).code)).ok,
    );
    await db.query(
      `INSERT INTO credentials (principal_id, type, identifier, webauthn_credential_id, webauthn_public_key, webauthn_aaguid, webauthn_sign_count, name)
       VALUES ($1, 'webauthn', 'mallory-passkey', '\\x01', '\\x02', 'adce0002-35bc-c60a-648b-0b25f1f05503', 7, 'Phone')`,
      [mallory],
    );
    assert.equal(
      await linkToPerson(
        db,
        'github',
        { subject: '42', email: HOSTILE_EMAIL, emailVerified: false, name: undefined },
        mallory,
      ),
      'linked',
    );
    const hostileApp = await identityApi('/applications', {
      method: 'POST',
      body: { name: HOSTILE_APP, app_type: 'spa', redirect_uris: ['https://evil.example/cb'] },
    });
    await recordConsent(db, mallory, hostileApp.body.application.client_id, ['openid', 'profile']);
    const org = await identityApi('/organizations', { method: 'POST', body: { name: HOSTILE_ORG, slug: 'evil' } });
    assert.equal(
      (
        await identityApi(`/organizations/${org.body.id}/members`, {
          method: 'POST',
          body: { principal_id: mallory, role: 'admin' },
        })
      ).status,
      201,
    );
    const made = await identityApi('/principals', {
      method: 'POST',
      body: { type: 'human', email: 'pat@acme.example', display_name: 'Pat Plain' },
    });
    pat = made.body.id;
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  const statusSays = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).first().waitFor();
  // Each section of a person's page loads on its own: a table is read once it is drawn.
  const rowHeaders = async (page: Page, table: string | RegExp) => {
    const drawn = page.getByRole('table', { name: table });
    await drawn.getByRole('rowheader').first().waitFor();
    return drawn.getByRole('rowheader').allTextContents();
  };

  test("search, then a person's page: everything typed stays text, nothing secret is shown", async () => {
    const page = await openPage(browser, problems);
    await signIn(page, p);
    await openFromNav(page, 'People');
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    await statusSays(page, '3 people.');
    assert.deepEqual(await rowHeaders(page, /People at identity/), [HOSTILE_NAME, 'Olga Owner', 'Pat Plain']);
    await page.getByLabel('Search people').fill('MALLORY@');
    await page.getByRole('button', { name: 'Search' }).click();
    await statusSays(page, '1 person matching “MALLORY@”.');
    await assertNothingRan(page);
    await assertAccessible(page, 'people');
    await screenshot(page, '20-people');
    await assertNarrowBothSchemes(page, 'people', '20-people');

    await page.getByRole('link', { name: HOSTILE_NAME }).click();
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();
    await page.getByRole('table', { name: 'Credentials that work now, by kind' }).waitFor();
    assert.deepEqual(await rowHeaders(page, 'Credentials that work now, by kind'), [
      'Password',
      'Passkey',
      'Authenticator app',
    ]);
    // The provider by its name, not the code identity keeps (app/kind-names.ts).
    assert.deepEqual(await rowHeaders(page, 'Accounts at other providers they sign in with'), ['GitHub']);
    assert.match(
      (await page.getByRole('table', { name: 'Accounts at other providers they sign in with' }).textContent()) ?? '',
      /<svg onload=window\.__pwned=5>@x\.example \(not verified there\)/,
    );
    assert.equal((await rowHeaders(page, 'Browsers signed in at identity, newest first')).length, 2);
    assert.deepEqual(await rowHeaders(page, 'Apps they allowed'), [HOSTILE_APP]);
    assert.deepEqual(await rowHeaders(page, 'Organizations they belong to'), [`${HOSTILE_ORG} (evil)`]);
    assert.equal(await page.getByRole('checkbox', { name: 'Identity' }).isChecked(), false);
    // Her language by its name, the tag identity holds beside it.
    assert.equal(await page.locator('dt:text-is("Language") + dd').textContent(), 'English (en)');
    // She signs in with a password: no password link for her.
    assert.equal(await page.getByRole('button', { name: 'Issue a password link' }).count(), 0);
    await page.getByText('a password link is only for someone who has none yet').waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /secret_hash|\$scrypt|cs_/);
    await assertNothingRan(page);
    assert.equal(await page.locator('main iframe, main svg').count(), 0);
    await assertAccessible(page, "a person's page");
    await screenshot(page, '21-person');
    await assertNarrowBothSchemes(page, "a person's page", '22-person');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('rights, a session, a consent, second factors, sign out everywhere, deactivate: each said, each recorded', async () => {
    const page = await openPage(browser, problems);
    await signIn(page, p);
    await page.goto(`${p.url.dashboard}/identity/people/${mallory}`);
    await page.getByRole('heading', { level: 1, name: HOSTILE_NAME }).waitFor();

    // A console right given, then taken.
    await page.getByRole('checkbox', { name: 'Identity' }).check();
    await page.getByRole('button', { name: 'Save rights' }).click();
    await statusSays(page, `${HOSTILE_NAME} now holds: Identity.`);
    const rights = await identityApi(`/principals/${mallory}/console-rights`);
    assert.equal(rights.body.rights.find((r: { name: string }) => r.name === 'identity').held, true);
    await page.getByRole('checkbox', { name: 'Identity' }).uncheck();
    await page.getByRole('button', { name: 'Save rights' }).click();
    await statusSays(page, `${HOSTILE_NAME} now holds no right in the console.`);

    // One session ended; the consent withdrawn.
    const sessions = 'Browsers signed in at identity, newest first';
    await page
      .getByRole('table', { name: sessions })
      .getByRole('button', { name: /^End the session/ })
      .first()
      .click();
    await statusSays(page, /^The session started .* is ended: that browser must sign in again\.$/);
    await page.getByRole('table', { name: sessions }).locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('table', { name: sessions }).locator('tbody tr').count(), 1);
    await page.getByRole('button', { name: `Withdraw the consent to ${HOSTILE_APP}` }).click();
    await statusSays(page, `The consent to ${HOSTILE_APP} is withdrawn: its tokens for them are revoked.`);

    // Second factors reset, in a dialog.
    await page.getByRole('button', { name: 'Reset second factors' }).click();
    const reset = page.getByRole('dialog', { name: `Reset the second factors of ${HOSTILE_NAME}?` });
    await reset.waitFor();
    await assertAccessible(page, 'the reset dialog');
    await screenshot(page, '23-person-reset-dialog');
    await reset.getByRole('button', { name: 'Reset second factors' }).click();
    await statusSays(
      page,
      `The second factors of ${HOSTILE_NAME} are reset: 1 authenticator app and 1 passkey revoked.`,
    );
    await page.getByText('2 revoked or expired credentials are kept on record.').waitFor();
    assert.deepEqual(await rowHeaders(page, 'Credentials that work now, by kind'), ['Password']);

    // Sign out everywhere, by keyboard: the dialog opens on Cancel; Shift+Tab reaches the action.
    await page.getByRole('button', { name: 'Sign out everywhere' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: `Sign ${HOSTILE_NAME} out everywhere?` }).waitFor();
    assert.deepEqual([(await focused(page)).text, (await focused(page)).inDialog], ['Cancel', true]);
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).text, 'Sign out everywhere');
    await page.keyboard.press('Enter');
    await statusSays(page, `${HOSTILE_NAME} is signed out everywhere: 1 session ended, 4 tokens revoked.`);
    await page.getByText('No browser is signed in.').waitFor();
    assert.equal((await focused(page)).text, 'Sign out everywhere', 'the focus is back on the button');

    // Deactivate and reactivate.
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page
      .getByRole('dialog', { name: `Deactivate ${HOSTILE_NAME}?` })
      .getByRole('button', { name: 'Deactivate' })
      .click();
    await statusSays(page, `${HOSTILE_NAME} is deactivated: signed out everywhere, and they cannot sign in.`);
    assert.equal((await identityApi(`/principals/${mallory}`)).body.active, false);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await statusSays(page, `${HOSTILE_NAME} is active again: they can sign in.`);
    assert.equal((await identityApi(`/principals/${mallory}`)).body.active, true);

    const changes = await identityRuntime(p.app.identity!).db.query<{ action: string; actor_kind: string }>(
      // What the owner did in the console; Mallory's own sign-ins and second factors are on the record too.
      `SELECT action, actor_kind FROM admin_changes WHERE target_id = $1 AND actor_kind = 'person'
          AND action NOT LIKE 'signin.%' AND action NOT IN ('second_factor.add', 'second_factor.remove') ORDER BY id`,
      [mallory],
    );
    assert.deepEqual(
      changes.rows.map((c) => c.action),
      [
        'console_rights.set',
        'console_rights.set',
        'login_session.end',
        'principal.consent.delete',
        'second_factors.reset',
        'login_sessions.end_all',
        'principal.deactivate',
        'principal.activate',
      ],
    );
    await assertNothingRan(page);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a person with no way to sign in gets a password link, shown once as text and copied', async () => {
    const page = await openPage(browser, problems, { clipboardOrigin: p.url.dashboard });
    await signIn(page, p);
    await page.goto(`${p.url.dashboard}/identity/people/${pat}`);
    await page.getByRole('heading', { level: 1, name: 'Pat Plain' }).waitFor();
    await page.getByText('No credential works now').waitFor();
    await page.getByRole('button', { name: 'Issue a password link' }).click();
    await page.getByRole('heading', { name: 'The password link, shown this once' }).waitFor();
    const link = ((await page.locator('.secret-value').textContent()) ?? '').trim();
    assert.match(link, new RegExp(`^${p.url.identity}/account/choose-password\\?token=`));
    assert.equal(await page.locator(`a[href^="${p.url.identity}/account/choose-password"]`).count(), 0, 'not a link');
    await page.getByRole('button', { name: 'Copy the password link for Pat Plain' }).click();
    await statusSays(page, 'Copied.');
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), link);
    const opened = await fetch(link);
    assert.equal(opened.status, 200);
    await assertAccessible(page, 'the password link');
    await screenshot(page, '24-person-password-link');
    // Leaving and coming back: the link is not shown again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Pat Plain' }).waitFor();
    assert.ok(!(await page.content()).includes(link));

    await page.goto(`${p.url.dashboard}/identity/people/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('heading', { level: 1, name: 'No such person' }).waitFor();
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
