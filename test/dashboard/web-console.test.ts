import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { identityRuntime } from '../../src/identity/app.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { startLinkedPlatform, type LinkedPlatform } from '../support/linked-platform.ts';
import { assertAccessible } from '../support/axe.ts';
import {
  brokenWordsInTables,
  captionsPastTheEdge,
  openFromNav,
  scrollHintsMissing,
} from '../support/console-browser.ts';

/**
 * The web app as the platform's console (issue 25), on the four services linked as `platform start` links them: the
 * owner signs in once (the dashboard's "Sign in with the platform account") and the app signs in at identity for the
 * console by itself (a silent authorization in a top-level redirect); the Identity section lists identity's
 * applications, hostile names and URLs shown as text. A person without rights sees no Identity entry and identity's
 * API refuses their token.
 */
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url);
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const OWNER = { email: 'olga@acme.example', name: 'Olga Owner', password: 'a long enough passphrase' };
const PAUL = { email: 'paul@acme.example', name: 'Paul Plain', password: 'paul chose this passphrase' };
const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>';
const HOSTILE_URL = 'javascript:window.__pwned=2';

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

describe('the console: one sign-in, sections by right, identity applications', () => {
  let p: LinkedPlatform;
  let browser: Browser;
  const problems: string[] = [];

  const identityApi = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
    const r = await fetch(`${p.url.identity}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  /** A page in a fresh context that reports script errors, CSP violations and dialogs (none may happen). */
  const open = async (viewport = { width: 1280, height: 900 }) => {
    const context = await browser.newContext({ reducedMotion: 'reduce', viewport });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !/401|403|Failed to load resource/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('dialog', (d) => {
      problems.push(`a dialog opened: ${d.message()}`);
      void d.dismiss();
    });
    return page;
  };

  /** The dashboard's sign-in through identity's page; the console then signs in at identity on its own. */
  const signIn = async (page: Page, who: { email: string; password: string; name: string }) => {
    await page.goto(p.url.dashboard!);
    await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await page.getByLabel('Email address').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: `Welcome, ${who.name}` }).waitFor();
    // The console's session arrives after the silent round trip through identity.
    await page.waitForFunction(() => localStorage.getItem('console.session') !== null);
    await page.getByRole('heading', { level: 1, name: `Welcome, ${who.name}` }).waitFor();
    assert.equal(new URL(page.url()).origin, p.url.dashboard);
  };

  before(async () => {
    p = await startLinkedPlatform('webconsole', ['identity', 'dashboard', 'audit', 'ingest'], {
      IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const setup = await fetch(`${p.url.dashboard}/api/v1/setup`, {
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
    assert.equal(setup.status, 201, await setup.text());
    for (const app of [
      { name: 'Storefront', app_type: 'spa', redirect_uris: ['https://shop.example/callback'] },
      {
        name: HOSTILE_NAME,
        description: '<script>window.__pwned=3</script>',
        app_type: 'machine',
        logo_url: HOSTILE_URL,
      },
      { name: 'Reports', app_type: 'machine', logo_url: 'https://reports.example/logo.png' },
    ]) {
      // The API now refuses a javascript: logo (apps/logo.ts); a row written before that rule still holds one.
      const { logo_url, ...accepted } = app;
      const made = await identityApi('/applications', {
        method: 'POST',
        body: logo_url === HOSTILE_URL ? accepted : app,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    await identityRuntime(p.app.identity!).db.query('UPDATE oauth_apps SET logo_url = $1 WHERE name = $2', [
      HOSTILE_URL,
      HOSTILE_NAME,
    ]);
    // Paul has an account at identity and no right.
    await createHuman(identityRuntime(p.app.identity!).db, {
      email: PAUL.email,
      displayName: PAUL.name,
      password: PAUL.password,
      emailVerified: true,
    });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await p?.close();
  });

  test('the owner signs in once and opens Identity → Applications; hostile text stays text, nothing runs', async () => {
    const page = await open();
    await signIn(page, OWNER);
    const nav = page.getByRole('navigation', { name: 'Main' });
    // Audit and ingest are linked, so their sections are there.
    assert.deepEqual(await nav.getByRole('heading', { level: 2 }).allTextContents(), [
      'Dashboards',
      'Identity',
      'Audits',
      'Events',
    ]);
    // At 1280 px the banner is one tidy row: the console's name, a button per section, who is signed in; the page
    // title names the console too.
    const banner = page.locator('header.banner');
    const row = await banner.boundingBox();
    assert.ok(row && row.height < 70, `the banner is one row at 1280 px (${row?.height} px)`);
    assert.equal(await banner.locator('.product').textContent(), 'Platform console');
    assert.equal(await page.title(), 'Home · Platform console');
    const tops = await banner
      .locator('.product, nav button, .who > *')
      .evaluateAll((els) =>
        els.map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2)),
      );
    assert.ok(Math.max(...tops) - Math.min(...tops) <= 4, `the banner's items sit on one line (${tops.join(', ')})`);
    await screenshot(page, '01-home-owner');
    // A section's links drop below its button; Escape closes them and gives the button the focus back.
    const identity = nav.getByRole('button', { name: 'Identity' });
    assert.equal(await identity.getAttribute('aria-expanded'), 'false');
    assert.equal(await nav.getByRole('link', { name: 'Applications' }).isVisible(), false);
    await identity.click();
    assert.equal(await identity.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Applications' }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `the Identity section open, ${scheme}`);
      await screenshot(page, `01b-section-open-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    assert.equal(await identity.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Identity');
    assert.equal(await nav.getByRole('link', { name: 'Applications' }).isVisible(), false);
    await openFromNav(page, 'Applications');
    await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
    assert.equal(await page.title(), 'Applications · Platform console');
    assert.equal(await identity.getAttribute('aria-current'), 'true', "the open screen's section is marked");
    assert.equal(
      await nav.getByRole('link', { name: 'Applications' }).isVisible(),
      false,
      'opening it closed the menu',
    );
    await page.getByRole('status').filter({ hasText: '3 applications.' }).waitFor();
    const table = page.getByRole('table', { name: /Applications registered at identity/ });
    const names = await table.getByRole('rowheader').allTextContents();
    assert.ok(names.includes('Storefront'), names.join(' | '));
    assert.ok(
      names.some((n) => n.startsWith(HOSTILE_NAME) && n.includes('<script>window.__pwned=3</script>')),
      names.join(' | '),
    );
    const hostileRow = table.getByRole('row').filter({ hasText: HOSTILE_NAME });
    // Its only link is its name, to its page: the javascript: URL is no link.
    const hrefs = await hostileRow.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.equal(hrefs.length, 1);
    assert.match(hrefs[0] ?? '', /^\/identity\/applications\/[0-9a-f-]{36}$/);
    assert.match((await hostileRow.textContent()) ?? '', /javascript:window\.__pwned=2/);
    assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
    assert.equal(await page.locator('main img').count(), 0, 'no element came from a name');
    const safe = table
      .getByRole('row')
      .filter({ hasText: 'Reports' })
      .getByRole('link', { name: 'https://reports.example/logo.png' });
    assert.equal(await safe.getAttribute('href'), 'https://reports.example/logo.png');
    assert.equal(await safe.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
    await assertAccessible(page, 'applications, light');
    await screenshot(page, '02-applications');

    // Search by part of a name, in any case.
    await page.getByLabel('Search applications').fill('STORE');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '1 application matching “STORE”.' }).waitFor();
    assert.deepEqual(await table.getByRole('rowheader').allTextContents(), ['Storefront']);
    await page.getByLabel('Search applications').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: 'No application matches “nothing-like-this”.' }).waitFor();
    await page.getByLabel('Search applications').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '3 applications.' }).waitFor();

    // Light and dark at 320 px: the page reflows (the table scrolls in its own region), and axe finds nothing.
    await page.setViewportSize({ width: 320, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `applications at 320 px, ${scheme}`);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 320, 'no sideways scrolling');
      assert.deepEqual(await brokenWordsInTables(page), [], 'no word in the table broken across lines');
      assert.deepEqual(await captionsPastTheEdge(page), [], "the table's caption wraps within the screen");
      // The table runs past the screen's right edge: a shadow there says so, and the region says it scrolls.
      assert.deepEqual(await scrollHintsMissing(page), [], 'a table that scrolls sideways says so');
      assert.equal(await page.locator('.table-frame[data-more-right]').count(), 1, 'more columns to the right');
      await screenshot(page, `03-applications-320-${scheme}`);
    }
    // Scrolled to its end, the shadow moves to the left edge.
    await page.getByRole('region', { name: 'Applications' }).evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await page.locator('.table-frame[data-more-left]:not([data-more-right])').waitFor();
    assert.deepEqual(await scrollHintsMissing(page), [], 'the shadows follow the scroll');
    await screenshot(page, '03c-applications-320-scrolled');
    await page.getByRole('region', { name: 'Applications' }).evaluate((el) => el.scrollTo({ left: 0 }));
    // At 320 px the banner is one row, the navigation and the sign-out behind Menu: the screen starts in the first
    // screen, not below four sections of links. The menu opens from the keyboard, and opening a screen closes it.
    const narrow = await banner.boundingBox();
    assert.ok(narrow && narrow.height < 80, `the banner is one row at 320 px (${narrow?.height} px)`);
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await nav.isVisible(), false, 'the navigation waits behind Menu');
    await menu.focus();
    await page.keyboard.press('Enter');
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'People' }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `the menu open at 320 px, ${scheme}`);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 320, 'no sideways scrolling');
      await screenshot(page, `03b-menu-320-${scheme}`);
    }
    await nav.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'opening a screen closes the menu');
    assert.equal(await nav.isVisible(), false);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(problems, [], 'no script error, CSP violation or dialog');
    await page.context().close();
  });

  test('keyboard only: from the top of the page to Identity → Applications, the focus always visible', async () => {
    const page = await open();
    await signIn(page, OWNER);
    const focused = () =>
      page.evaluate(
        '({ text: (document.activeElement?.textContent ?? "").trim(), outline: document.activeElement ? getComputedStyle(document.activeElement).outlineStyle : "" })',
      ) as Promise<{ text: string; outline: string }>;
    // The skip link is the page's first stop; from it, Tab walks the banner's section buttons to Identity, Enter opens
    // its links and Tab reaches the first.
    const first = await page.evaluate(
      'document.querySelector(\'a[href], button, input, select, textarea, [tabindex="0"]\').textContent',
    );
    assert.equal(first, 'Skip to content');
    await page.focus('.skip-link');
    const seen: string[] = [];
    const step = async () => {
      await page.keyboard.press('Tab');
      const f = await focused();
      seen.push(f.text);
      assert.match(f.outline, /solid|auto/, `the focus on "${f.text}" is visible`);
    };
    for (let i = 0; i < 20 && (await focused()).text !== 'Identity'; i++) await step();
    assert.deepEqual(seen, ['Dashboards', 'Identity']);
    await page.keyboard.press('Enter');
    await step();
    assert.equal(seen.at(-1), 'Applications');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/identity/applications');
    // The skip link leads past the banner into the screen: the next stop is the search field.
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'apps-search');
    await assertAccessible(page, 'applications by keyboard');
    await page.context().close();
  });

  test('a person without the identity right sees no Identity entry, and identity answers their token 403', async () => {
    const ownerPage = await open();
    await signIn(ownerPage, OWNER);
    const ownerToken = (await ownerPage.evaluate(
      () => JSON.parse(localStorage.getItem('dashboard.session')!).accessToken,
    )) as string;
    await ownerPage.context().close();
    const added = await fetch(`${p.url.dashboard}/api/v1/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: PAUL.email, name: PAUL.name, role: 'viewer' }),
    });
    assert.equal(added.status, 201, await added.text());

    const page = await open();
    await signIn(page, PAUL);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'Applications' }).count(), 0);
    assert.equal(await nav.getByText('Identity').count(), 0, 'no Identity section');
    assert.equal(await nav.getByText('Audits').count(), 0, 'no Audits section');
    await screenshot(page, '04-home-no-rights');
    const session = (await page.evaluate(() => JSON.parse(localStorage.getItem('console.session')!))) as {
      accessToken: string;
      scope: string;
    };
    assert.deepEqual(session.scope.split(' ').sort(), ['email', 'openid', 'profile']);
    const refused = await identityApi('/applications', { token: session.accessToken });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
    // Typing the address anyway: the screen says it is not theirs, and asks identity nothing.
    await page.goto(`${p.url.dashboard}/identity/applications`);
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /needs the Identity right/);
    await assertAccessible(page, 'not available');
    await page.goto(`${p.url.dashboard}/audits/runs?url=${encodeURIComponent('https://shop.example/')}`);
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /needs the Audits right/);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('two tabs whose console token was revoked: one refresh between them, both tabs keep working', async () => {
    const context = await browser.newContext({ reducedMotion: 'reduce' });
    const a = await context.newPage();
    await signIn(a, OWNER);
    const b = await context.newPage();
    const before = (await a.evaluate(() => JSON.parse(localStorage.getItem('console.session')!))) as {
      accessToken: string;
      refreshToken: string;
    };
    // The access token is gone at identity (as once it expires; revoking it would end its grant, refresh token too).
    await identityRuntime(p.app.identity!).db.query(
      "DELETE FROM oauth_tokens WHERE kind = 'access_token' AND client_id = 'platform-console'",
    );
    assert.equal((await identityApi('/applications', { token: before.accessToken })).status, 401);
    const url = `${p.url.dashboard}/identity/applications`;
    await Promise.all([a.goto(url), b.goto(url)]);
    for (const page of [a, b]) await page.getByRole('status').filter({ hasText: '3 applications.' }).waitFor();
    const after = (await a.evaluate(() => JSON.parse(localStorage.getItem('console.session')!))) as {
      accessToken: string;
      refreshToken: string;
    };
    assert.notEqual(after.accessToken, before.accessToken);
    assert.notEqual(after.refreshToken, before.refreshToken, 'the refresh token rotated');
    // A refresh token presented twice ends its whole family: the new token still working shows it was used once.
    assert.equal((await identityApi('/applications', { token: after.accessToken })).status, 200);
    assert.equal(await a.getByRole('button', { name: 'Sign in to the platform' }).count(), 0);
    await context.close();
  });

  test("identity's browser session of another person: the console drops that token and says so", async () => {
    const owner = await open();
    await signIn(owner, OWNER);
    const stored = (await owner.evaluate(() => JSON.parse(localStorage.getItem('console.session')!))) as {
      email: string;
    };
    assert.equal(stored.email, OWNER.email, "the console's token is the dashboard's person's");
    const pair = (await owner.evaluate(() => localStorage.getItem('dashboard.session'))) as string;
    await owner.context().close();
    // A browser signed in at identity as Paul, holding Olga's dashboard session.
    const page = await open();
    await page.goto(`${p.url.identity}/signin?return_to=/account/password`);
    await page.getByLabel('Email address').fill(PAUL.email);
    await page.getByLabel('Password').fill(PAUL.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/account/password');
    await page.goto(p.url.dashboard!);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.evaluate((value) => localStorage.setItem('dashboard.session', value), pair);
    await page.goto(`${p.url.dashboard}/identity/applications`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(
      await alert.textContent(),
      `This browser is signed in to the platform with another account than ${OWNER.email}: sign out of the platform, then sign in to it as ${OWNER.email}.`,
    );
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('console.session')), null);
    await page.getByRole('button', { name: 'Sign in to the platform' }).waitFor();
    assert.equal(
      await page.getByRole('navigation', { name: 'Main' }).locator('a', { hasText: 'Applications' }).count(),
      0,
    );
    await assertAccessible(page, 'another account at identity');
    await screenshot(page, '05-another-account');
    await page.context().close();
  });

  test('signing out ends the console too; signing in again opens it again without a second sign-in', async () => {
    const page = await open();
    await signIn(page, OWNER);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('console.session')), null);
    // Identity's own session is still there: the dashboard's sign-in and the console's need no password now.
    await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await page.getByRole('heading', { level: 1, name: `Welcome, ${OWNER.name}` }).waitFor();
    await page.waitForFunction(() => localStorage.getItem('console.session') !== null);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Identity' }).waitFor();
    await page.context().close();
  });
});
