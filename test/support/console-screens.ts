import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { startLinkedPlatform, type LinkedPlatform } from './linked-platform.ts';
import { assertAccessible } from './axe.ts';
import { brokenWordsInTables, hiddenTextTakingRoom, pagersBroken, scrollHintsMissing } from './console-browser.ts';

/**
 * What the Chromium tests of the console's identity screens share (test/dashboard/web-console-*.test.ts): identity and
 * the dashboard linked as `platform start` links them, the first owner (who holds every console right), a browser whose
 * pages report any script error, CSP violation or native dialog, the owner's sign-in, screenshots, and the checks every
 * screen passes (axe in light and dark at 320 px without sideways scrolling or a word broken in a table, nothing hostile ran).
 */
export const OWNER = { email: 'olga@acme.example', name: 'Olga Owner', password: 'a long enough passphrase' };
export const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>';
export const HOSTILE_URL = 'javascript:window.__pwned=2';
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url);

export interface ConsoleHarness {
  platform: LinkedPlatform;
  adminToken: string;
  /** identity's management API with IDENTITY_ADMIN_TOKEN (or `token`): status and JSON body. */
  identityApi(
    path: string,
    init?: { method?: string; body?: unknown; token?: string },
  ): Promise<{ status: number; body: any }>;
  /** A page in a fresh context; what went wrong in it is collected in `problems`. */
  open(viewport?: { width: number; height: number }): Promise<Page>;
  problems: string[];
  signIn(page: Page): Promise<void>;
  screenshot(page: Page, name: string): Promise<void>;
  /**
   * axe at zero violations in light and dark at 320 px, no sideways scrolling, no text for screen readers taking room,
   * a screenshot of each; back to 1280 light.
   */
  checkNarrow(page: Page, what: string, shot: string): Promise<void>;
  assertNothingRan(page: Page): Promise<void>;
  close(): Promise<void>;
}

/**
 * `services` adds to identity and the dashboard (`['ingest']` for the Events section), `env` to their settings.
 */
export async function startConsole(
  label: string,
  options: { services?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<ConsoleHarness> {
  const adminToken = randomBytes(24).toString('hex');
  const platform = await startLinkedPlatform(label, ['identity', 'dashboard', ...(options.services ?? [])], {
    IDENTITY_ADMIN_TOKEN: adminToken,
    ...options.env,
  });
  let browser: Browser | undefined;
  const problems: string[] = [];
  const close = async () => {
    await browser?.close();
    await platform.close();
  };
  try {
    const setup = await fetch(`${platform.url.dashboard}/api/v1/setup`, {
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
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  } catch (err) {
    await close();
    throw err;
  }
  const b = browser;

  const identityApi: ConsoleHarness['identityApi'] = async (path, init = {}) => {
    const r = await fetch(`${platform.url.identity}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.token ?? adminToken}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    return { status: r.status, body: r.status === 204 ? undefined : await r.json() };
  };

  const open = async (viewport = { width: 1280, height: 900 }) => {
    const context = await b.newContext({ reducedMotion: 'reduce', viewport });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !/401|403|404|409|Failed to load resource/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('dialog', (d) => {
      problems.push(`a native dialog opened: ${d.message()}`);
      void d.dismiss();
    });
    return page;
  };

  const signIn = async (page: Page) => {
    // A second try when identity's page has not come 15 s after the click: once, in a full CI run, it never came
    // (not seen again alone or in the run before); where the browser was then goes to the test's output.
    for (let attempt = 1; ; attempt++) {
      await page.goto(platform.url.dashboard!);
      await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
      try {
        await page.getByLabel('Email address').waitFor({ timeout: 15_000 });
        break;
      } catch (err) {
        if (attempt === 2) throw err;
        console.warn(`signIn: no sign-in page 15 s after the click, at ${page.url()}; trying again`);
      }
    }
    await page.getByLabel('Email address').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: `Welcome, ${OWNER.name}` }).waitFor();
    await page.waitForFunction(() => localStorage.getItem('console.session') !== null);
  };

  const screenshot = async (page: Page, name: string) => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
  };

  const assertNothingRan = async (page: Page) => {
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined, 'nothing ran');
    assert.equal(await page.locator('a[href^="javascript"]').count(), 0, 'no javascript: link');
    assert.equal(await page.locator('main img').count(), 0, 'no element came from a name');
  };

  const checkNarrow = async (page: Page, what: string, shot: string) => {
    await page.setViewportSize({ width: 320, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await assertAccessible(page, `${what} at 320 px, ${scheme}`);
      const wide = await page.evaluate(
        `[...document.querySelectorAll('body *')].filter((e) => (e.getBoundingClientRect().right > 321 || e.scrollWidth > e.clientWidth + 1) && !e.closest('.table-wide') && getComputedStyle(e).overflowX === 'visible').slice(0, 3).map((e) => e.tagName + '.' + e.className + ': ' + (e.textContent ?? '').slice(0, 40))`,
      );
      assert.equal(
        await page.evaluate('document.documentElement.scrollWidth'),
        320,
        `${what}: no sideways scrolling (${JSON.stringify(wide)})`,
      );
      assert.deepEqual(await brokenWordsInTables(page), [], `${what}: no word in a table broken across lines`);
      assert.deepEqual(await scrollHintsMissing(page), [], `${what}: a table that scrolls sideways says so`);
      assert.deepEqual(await hiddenTextTakingRoom(page), [], `${what}: text for screen readers takes no room`);
      assert.deepEqual(await pagersBroken(page), [], `${what}: a pager's controls are on one line`);
      await screenshot(page, `${shot}-320-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  return {
    platform,
    adminToken,
    identityApi,
    open,
    problems,
    signIn,
    screenshot,
    checkNarrow,
    assertNothingRan,
    close,
  };
}

/** Tabs until the focus is on an element whose accessible text matches `name` (at most `limit` presses). */
export async function tabTo(page: Page, name: RegExp, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const text = (await page.evaluate(
      '(document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "").trim()',
    )) as string;
    if (name.test(text)) return;
  }
  assert.fail(`no element matching ${name} within ${limit} tabs`);
}
