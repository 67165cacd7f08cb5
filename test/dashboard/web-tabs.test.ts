import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';

/**
 * One sign-in for every tab of the app (Grafana's and Redash's users open dashboards in new tabs all day): the pair is
 * shared, tabs refresh it one at a time (the service ends a session whose refresh token comes twice), and signing out
 * in one tab signs the others out.
 */
describe('the dashboard web app: one sign-in across tabs', () => {
  let s: DashboardServer;
  let browser: Browser;
  before(async () => {
    s = await startDashboard('webtabs');
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  let context: BrowserContext;
  afterEach(async () => context?.close());

  const pair = (who: SignedIn) =>
    JSON.stringify({
      accessToken: who.accessToken,
      refreshToken: who.refreshToken,
      expiresIn: who.expiresIn,
      tokenType: 'Bearer',
    });
  const stored = async (page: Page) =>
    JSON.parse((await page.evaluate('localStorage.getItem("dashboard.session")')) as string) as {
      accessToken: string;
      refreshToken: string;
    };
  const signedInTab = async (who: SignedIn): Promise<Page> => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${s.url}/`);
    await page.evaluate(`localStorage.setItem('dashboard.session', ${JSON.stringify(pair(who))})`);
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  };

  test('a second tab is signed in; both refreshing an expired token at once keep the session', async () => {
    const who = await s.signIn({ tenant: 'acme', role: 'editor', name: 'Tabitha' });
    const first = await signedInTab(who);
    const second = await context.newPage();
    await second.goto(`${s.url}/dashboards`);
    await second.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    assert.match(await second.locator('.who').innerText(), /Tabitha/);

    // An access token the service refuses, as an expired one is: both tabs reload together and must refresh it.
    const before = await stored(first);
    await first.evaluate(
      `localStorage.setItem('dashboard.session', ${JSON.stringify(JSON.stringify({ ...before, accessToken: 'expired', expiresIn: 900, tokenType: 'Bearer' }))})`,
    );
    await Promise.all([first.reload(), second.reload()]);
    await Promise.all([
      first.getByRole('button', { name: 'Sign out' }).waitFor(),
      second.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor(),
    ]);
    const after = await stored(second);
    assert.notEqual(after.refreshToken, before.refreshToken, 'refreshed once');
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${after.accessToken}` } });
    assert.equal(me.status, 200, 'the session survived: its refresh token was not presented twice');
    assert.equal((await stored(first)).accessToken, after.accessToken, 'both tabs hold the same pair');
  });

  test('signing out in one tab signs the other out and says why', async () => {
    const who = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const first = await signedInTab(who);
    const second = await context.newPage();
    await second.goto(`${s.url}/dashboards`);
    await second.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
    await first.getByRole('button', { name: 'Sign out' }).click();
    await second.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(
      await second.getByRole('status').filter({ hasText: 'another tab' }).textContent(),
      'You signed out in another tab.',
    );
  });

  test("a tab holding an earlier version's per-tab pair stays signed in, the pair moved to the shared store", async () => {
    const who = await s.signIn({ tenant: 'acme', role: 'viewer', name: 'Old Tab' });
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/`);
    await page.evaluate(`sessionStorage.setItem('dashboard.session', ${JSON.stringify(pair(who))})`);
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("dashboard.session")'), null);
    assert.equal((await stored(page)).accessToken, who.accessToken);
  });
});
