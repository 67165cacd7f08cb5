import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freePort } from '../support/free-port.ts';
import { tempDir } from '../support/tmp.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { assertAccessible, screenshot } from './web/browser.ts';
import { openFromNav } from '../support/console-browser.ts';

/**
 * "New password link" on the Users screen, on `platform start` (identity and the dashboard linked in one process): the
 * first link is lost, the owner makes a new one by keyboard, the old one stops working, the new one sets the password,
 * and a further request is refused with why (src/dashboard/users/password-link-routes.ts).
 */
const OWNER = { email: 'olga@acme.example', name: 'Olga Owner', password: 'a long enough passphrase' };
const NINA = { email: 'nina@acme.example', name: 'Nina New', password: 'nina chose this passphrase' };
const ADMIN_TOKEN = randomBytes(24).toString('hex');

describe('a new password link for a teammate who never chose one', () => {
  const dataDir = tempDir('pwlink-');
  let platform: ServiceProcess;
  let identity: string;
  let dashboard: string;
  let browser: Browser;

  before(async () => {
    const [identityPort, dashboardPort] = [await freePort(), await freePort()];
    identity = `http://localhost:${identityPort}`;
    dashboard = `http://localhost:${dashboardPort}`;
    platform = await startServiceProcess(['identity', 'dashboard'], {
      DATA_DIR: dataDir.path,
      DASHBOARD_PLATFORM_DATA: 'false',
      LOG_LEVEL: 'info',
      PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
      IDENTITY_PORT: String(identityPort),
      IDENTITY_ISSUER: identity,
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      DASHBOARD_PORT: String(dashboardPort),
    });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    dataDir.remove();
  });

  const linkIn = async (page: Page, name: string): Promise<string> => {
    const said = (await page
      .getByRole('status')
      .filter({ hasText: `Send ${name} this link to choose a password` })
      .textContent())!;
    const m = new RegExp(`^Send ${name} this link to choose a password: (\\S+) \\(valid 7 days, once\\)$`).exec(said);
    assert.ok(m, said);
    return m[1]!;
  };
  const focusedLabel = (page: Page) =>
    page.evaluate(
      'document.activeElement && (document.activeElement.getAttribute("aria-label") || document.activeElement.textContent)',
    );

  test('in Chromium, by keyboard: a new link replaces the lost one, sets the password, and a further one is refused (409, explained)', async () => {
    const setup = await fetch(`${dashboard}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenantName: 'Acme',
        tenantSlug: 'acme',
        email: OWNER.email,
        name: OWNER.name,
        password: OWNER.password,
        passwordConfirmation: OWNER.password,
      }),
    });
    assert.equal(setup.status, 201);

    const owner = await (await browser.newContext()).newPage();
    await owner.goto(dashboard);
    await owner.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await owner.getByLabel('Email address').fill(OWNER.email);
    await owner.getByLabel('Password').fill(OWNER.password);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    await owner.getByRole('heading', { level: 1, name: `Welcome, ${OWNER.name}` }).waitFor();
    await openFromNav(owner, 'Users');
    await owner.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    assert.equal(
      await owner.getByRole('button', { name: `New password link for ${OWNER.name}` }).count(),
      0,
      'not for oneself',
    );
    await owner.getByRole('button', { name: 'Add user' }).click();
    await owner.getByLabel('Email', { exact: true }).fill(NINA.email);
    await owner.getByLabel('Name', { exact: true }).fill(NINA.name);
    await owner.getByLabel('Role', { exact: true }).selectOption('editor');
    await owner.getByRole('button', { name: 'Add user' }).click();
    const lost = await linkIn(owner, NINA.name);

    // By keyboard, from "Add user" (where the focus returned) to Nina's row, once the refreshed list shows it:
    // tabbing before then walks past the table and on round the page.
    await owner.waitForFunction('document.activeElement && document.activeElement.textContent === "Add user"');
    await owner.getByRole('button', { name: `New password link for ${NINA.name}` }).waitFor();
    for (let i = 0; i < 20 && (await focusedLabel(owner)) !== `New password link for ${NINA.name}`; i++)
      await owner.keyboard.press('Tab');
    assert.equal(await focusedLabel(owner), `New password link for ${NINA.name}`);
    assert.match(
      (await owner.evaluate('getComputedStyle(document.activeElement).outlineStyle')) as string,
      /solid|auto/,
      'the focus is visible',
    );
    await owner.keyboard.press('Enter');
    await owner
      .getByRole('status')
      .filter({ hasText: `A new password link for ${NINA.name}: links sent before no longer work.` })
      .waitFor();
    const fresh = await linkIn(owner, NINA.name);
    assert.notEqual(fresh, lost);
    assert.match(fresh, new RegExp(`^${identity}/account/choose-password\\?token=[A-Za-z0-9_-]{43}$`));
    assert.equal(await focusedLabel(owner), `New password link for ${NINA.name}`, 'the focus stays on the button');
    await assertAccessible(owner, 'users screen with a new password link');
    await screenshot(owner, 'password-link-01-new');
    await owner.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(owner, 'users screen with a new password link, dark');
    await screenshot(owner, 'password-link-02-new-dark');
    await owner.emulateMedia({ colorScheme: 'light' });

    // The lost link now says it was replaced; the new one sets Nina's password.
    const nina = await (await browser.newContext()).newPage();
    await nina.goto(lost);
    await nina.getByRole('heading', { level: 1, name: 'Link replaced' }).waitFor();
    await nina.goto(fresh);
    await nina.getByLabel('New password', { exact: true }).fill(NINA.password);
    await nina.getByLabel('The new password again').fill(NINA.password);
    await nina.getByRole('button', { name: 'Set password' }).click();
    await nina.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();

    // Now she has one: the screen says so and why, and shows no link.
    await owner.getByRole('button', { name: `New password link for ${NINA.name}` }).click();
    const alert = owner.getByRole('alert');
    await alert.waitFor();
    assert.match(
      (await alert.textContent())!,
      /^the platform account of nina@acme\.example: the person already has a password: they sign in with it/,
    );
    assert.equal(
      await owner.getByRole('status').filter({ hasText: 'choose a password' }).count(),
      0,
      'the earlier link is gone',
    );
    await assertAccessible(owner, 'users screen after a refused password link');
    await screenshot(owner, 'password-link-03-refused');

    // The API's other answers, each in the documented shape.
    const token = (await owner.evaluate('JSON.parse(localStorage.getItem("dashboard.session")).accessToken')) as string;
    const ask = (id: string | number) =>
      fetch(`${dashboard}/api/v1/admin/users/${id}/password-link`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }).then(async (r) => ({
        status: r.status,
        cache: r.headers.get('cache-control'),
        body: (await r.json()) as any,
      }));
    const users = (await fetch(`${dashboard}/api/v1/admin/users?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.json())) as { items: { id: number; email: string }[] };
    const idOf = (email: string) => users.items.find((u) => u.email === email)!.id;
    assert.deepEqual((await ask(999_999)).body, { error: { code: 'NOT_FOUND', message: 'user not found' } });
    assert.equal((await ask('abc')).status, 400);
    // Someone identity knew before this tenant's Add user (made by identity's admin, as here, or by another tenant's Add
    // user, whose account then comes back 'existing' the same way): this tenant's admin gets no way into it.
    const bob = await fetch(`${identity}/api/v1/principals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'human', email: 'bob@acme.example' }),
    });
    assert.equal(bob.status, 201);
    const added = (await fetch(`${dashboard}/api/v1/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bob@acme.example', name: 'Bob', role: 'viewer' }),
    }).then((r) => r.json())) as { id: number; platformAccount: string };
    assert.equal(added.platformAccount, 'existing');
    const notMade = await ask(added.id);
    assert.equal(notMade.status, 409);
    assert.match(
      notMade.body.error.message,
      /^bob@acme\.example's platform account was not made by Add user in this tenant/,
    );
    const again = await ask(idOf(NINA.email));
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    const audit = await fetch(`${dashboard}/api/v1/audit?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.text());
    assert.match(audit, /"action":"user\.password_link"/);
    assert.ok(!audit.includes(new URL(fresh).searchParams.get('token')!), 'the audit log has no link');

    // Neither service wrote a link's token to its log.
    const log = platform.stdout() + platform.stderr();
    for (const link of [lost, fresh])
      assert.ok(!log.includes(new URL(link).searchParams.get('token')!), 'a token reached the log');
  });
});
