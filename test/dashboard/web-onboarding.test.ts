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
 * A teammate's first sign-in on `platform start` (identity and the dashboard linked in one process, embedded storage,
 * as `npm start` runs them): the owner adds a user in the Users screen, gets a one-time link to pass on, the teammate
 * chooses a password there and signs in to the dashboard with the platform account, in the role the owner gave.
 */
const OWNER = { email: 'olga@acme.example', name: 'Olga Owner', password: 'a long enough passphrase' };
const NINA = { email: 'nina@acme.example', name: 'Nina New', password: 'nina chose this passphrase' };
const ADMIN_TOKEN = randomBytes(24).toString('hex');

describe('adding a teammate when identity is linked: a link to choose a password, then sign-in with it', () => {
  const dataDir = tempDir('onboard-');
  let platform: ServiceProcess;
  let identity: string;
  let dashboard: string;
  let browser: Browser;
  const consoleErrors: string[] = [];

  before(async () => {
    const [identityPort, dashboardPort] = [await freePort(), await freePort()];
    identity = `http://localhost:${identityPort}`;
    dashboard = `http://localhost:${dashboardPort}`;
    platform = await startServiceProcess(['identity', 'dashboard'], {
      DATA_DIR: dataDir.path,
      DASHBOARD_PLATFORM_DATA: 'false',
      // Debug: the request lines are written (they are at debug since issue 23), so the test can check the link's token
      // is not among them.
      LOG_LEVEL: 'debug',
      PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
      IDENTITY_PORT: String(identityPort),
      IDENTITY_ISSUER: identity,
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
      DASHBOARD_PORT: String(dashboardPort),
    });
    assert.match(platform.stdout(), /^linked\s+dashboard → identity$/m);
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    dataDir.remove();
  });

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    return page;
  };
  /** The dashboard's sign-in screen → identity's sign-in page → back in the app. */
  const signIn = async (page: Page, who: { email: string; name: string; password: string }) => {
    await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await page.waitForURL((u) => u.origin === identity);
    await page.getByLabel('Email address').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: `Welcome, ${who.name}` }).waitFor();
  };
  const addUser = async (page: Page, who: { email: string; name: string }, role: string) => {
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByLabel('Email', { exact: true }).fill(who.email);
    await page.getByLabel('Name', { exact: true }).fill(who.name);
    await page.getByLabel('Role', { exact: true }).selectOption(role);
    await page.getByRole('button', { name: 'Add user' }).click();
  };

  test('in Chromium: owner adds Nina, copies her link; Nina chooses a password and signs in as an editor; the link works once and is never logged', async () => {
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

    const owner = await newPage();
    await owner.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboard });
    await owner.goto(dashboard);
    await signIn(owner, OWNER);
    await openFromNav(owner, 'Users');
    await owner.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await addUser(owner, NINA, 'editor');
    await owner.getByRole('status').filter({ hasText: 'Nina New (nina@acme.example) is added as editor.' }).waitFor();
    const notice = owner.getByRole('status').filter({ hasText: 'Send Nina New this link to choose a password' });
    const said = (await notice.textContent())!;
    const m = /^Send Nina New this link to choose a password: (\S+) \(valid 7 days, once\)$/.exec(said);
    assert.ok(m, said);
    const link = m[1]!;
    assert.match(link, new RegExp(`^${identity}/account/choose-password\\?token=[A-Za-z0-9_-]{43}$`));
    // Copy, by keyboard: the focus is back on "Add user", the Copy button one step before it; the link lands on the
    // clipboard, and the page says so.
    const focusedLabel = () =>
      owner.evaluate(
        'document.activeElement && (document.activeElement.getAttribute("aria-label") || document.activeElement.textContent)',
      );
    await owner.waitForFunction('document.activeElement && document.activeElement.textContent === "Add user"');
    await owner.keyboard.press('Shift+Tab');
    assert.equal(await focusedLabel(), 'Copy the password link for Nina New');
    await owner.keyboard.press('Enter');
    await owner.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor();
    assert.equal(await owner.evaluate('navigator.clipboard.readText()'), link);
    await assertAccessible(owner, 'users screen with a password link');
    await screenshot(owner, 'onboard-01-link');
    await owner.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(owner, 'users screen with a password link, dark');
    await owner.emulateMedia({ colorScheme: 'light' });
    // The long link wraps at 320 px (WCAG 1.4.10) instead of widening the page.
    await owner.setViewportSize({ width: 320, height: 700 });
    assert.ok(
      await owner.evaluate('document.querySelector(".setup-link code").getBoundingClientRect().right <= 320'),
      'the link wraps inside the screen',
    );
    await owner.setViewportSize({ width: 1280, height: 720 });
    await owner.getByRole('row', { name: /Nina New/ }).waitFor();

    // Nina, in a browser of her own: the link, her password, then the dashboard's sign-in with the platform account.
    const nina = await newPage();
    await nina.goto(link);
    await nina.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
    assert.match((await nina.locator('main').textContent())!, /For the account nina@acme\.example/);
    await nina.getByLabel('New password', { exact: true }).fill(NINA.password);
    await nina.getByLabel('The new password again').fill(NINA.password);
    await nina.getByRole('button', { name: 'Set password' }).click();
    await nina.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();
    await screenshot(nina, 'onboard-02-password-set');
    await nina.getByRole('link', { name: 'Sign in' }).click();
    await nina.waitForURL((u) => u.origin === dashboard);
    await nina.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await signIn(nina, NINA);
    assert.match((await nina.locator('main').textContent()) ?? '', /nina@acme\.example with the role editor/);
    assert.match((await nina.locator('.who').textContent()) ?? '', /Nina New \(editor\)/);

    // Once only.
    const again = await fetch(link);
    assert.equal(again.status, 409);

    // Someone identity already knows: no link, and the screen says they use their own account.
    const bob = await fetch(`${identity}/api/v1/principals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'human', email: 'bob@acme.example', password: 'bob has his own password' }),
    });
    assert.equal(bob.status, 201);
    await addUser(owner, { email: 'bob@acme.example', name: 'Bob Known' }, 'viewer');
    await owner
      .getByRole('status')
      .filter({ hasText: 'bob@acme.example already has a platform account: they sign in with it.' })
      .waitFor();
    assert.equal(
      await owner.getByRole('status').filter({ hasText: 'choose a password' }).count(),
      0,
      'the earlier link is gone, and none is shown for Bob',
    );
    await assertAccessible(owner, 'users screen after adding a known account');

    // The API's answers: the link once in the 201, nothing of it when identity refuses, which rolls the user back.
    const token = (await owner.evaluate('JSON.parse(localStorage.getItem("dashboard.session")).accessToken')) as string;
    const add = (body: unknown) =>
      fetch(`${dashboard}/api/v1/admin/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const carl = await add({ email: 'carl@acme.example', name: 'Carl', role: 'viewer' });
    assert.equal(carl.status, 201);
    assert.equal(carl.body.platformAccount, 'created');
    assert.match(carl.body.setupLink, /\/account\/choose-password\?token=/);
    assert.ok(Date.parse(carl.body.setupLinkExpiresAt) - Date.now() > 6.9 * 86_400_000, 'seven days by default');
    const refused = await add({ email: 'dora@localhost', name: 'Dora', role: 'viewer' });
    assert.equal(refused.status, 400, 'identity refuses an address without a domain');
    assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
    assert.match(refused.body.error.message, /^email: the platform's identity service refused it: /);
    const users = (await fetch(`${dashboard}/api/v1/admin/users?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.json())) as { items: { email: string }[] };
    assert.deepEqual(
      users.items.map((u) => u.email).sort(),
      ['bob@acme.example', 'carl@acme.example', 'nina@acme.example', 'olga@acme.example'],
      'the refused user was rolled back',
    );
    const audit = await fetch(`${dashboard}/api/v1/audit?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.text());
    assert.match(audit, /"platformAccount":"created"/);

    // Neither service wrote a link's token, or Nina's password, to its log (the page's requests are logged, redacted).
    const log = platform.stdout() + platform.stderr();
    assert.match(log, /choose-password\?token=%5Bredacted%5D/, 'the page requests are in the log');
    for (const secret of [
      new URL(link).searchParams.get('token')!,
      new URL(carl.body.setupLink).searchParams.get('token')!,
      NINA.password,
    ]) {
      assert.ok(!log.includes(secret), 'a secret reached the log');
    }
    assert.deepEqual(
      consoleErrors.filter((e) => !/401|Failed to load resource/.test(e)),
      [],
      'no CSP violation or script error',
    );
  });
});
