import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { freePort } from '../support/free-port.ts';
import { tempDir } from '../support/tmp.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { assertAccessible, screenshot } from '../dashboard/web/browser.ts';

/**
 * Issue 12, "one product from the first minute": `platform start identity dashboard` as an operator runs it, on a fresh
 * database, with no app registered at identity and no DASHBOARD_OIDC_PROVIDERS. The first visitor creates the owner with
 * a password, then signs in with the platform account through identity's own sign-in page and lands in the dashboard.
 */

const PASSWORD = 'a long enough passphrase';

interface Started {
  process: ServiceProcess;
  identity: string;
  dashboard: string;
}

async function startBoth(storage: Record<string, string>): Promise<Started> {
  const [identityPort, dashboardPort] = [await freePort(), await freePort()];
  const issuer = `http://localhost:${identityPort}`;
  const process = await startServiceProcess(['identity', 'dashboard'], {
    ...storage,
    LOG_LEVEL: 'error',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    IDENTITY_PORT: String(identityPort),
    IDENTITY_ISSUER: issuer,
    DASHBOARD_PORT: String(dashboardPort),
  });
  if (!/^linked\s+dashboard → identity$/m.test(process.stdout())) {
    await process.stop();
    assert.fail(`platform start did not link the dashboard to identity: ${process.stdout()}`);
  }
  return { process, identity: issuer, dashboard: `http://localhost:${dashboardPort}` };
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  return { status: r.status, body: await r.json() };
}

/** The first run in the browser: owner with a password, then "Sign in with the platform account" through identity. */
async function firstRunAndSignIn(browser: Browser, s: Started, label: string, axe: boolean): Promise<void> {
  const page = await (await browser.newContext()).newPage();
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(s.dashboard);
  await page.getByRole('heading', { level: 1, name: 'Welcome: create the first owner' }).waitFor();
  await page.getByLabel('Organisation name').fill('Acme Analytics');
  await page.getByLabel('Your name').fill('Olga Owner');
  await page.getByLabel('Your email').fill('olga@acme.example');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD.toUpperCase());
  if (axe) {
    await assertAccessible(page, 'first-run screen with a password');
    await screenshot(page, `onestart-${label}-01-first-run`);
  }
  // A mismatch is said at the form, before anything is sent.
  await page.getByRole('button', { name: 'Create owner' }).click();
  assert.equal(await page.getByRole('alert').textContent(), 'The two passwords differ: type the same password twice.');
  if (axe) await assertAccessible(page, 'first-run screen with an error');
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create owner' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  assert.equal(
    await page.getByRole('status').textContent(),
    'olga@acme.example is now the owner of Acme Analytics. Sign in with the platform account and the password you chose.',
  );
  if (axe) await screenshot(page, `onestart-${label}-02-sign-in`);

  await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
  await page.waitForURL((u) => u.origin === s.identity);
  await page.getByLabel('Email address').fill('olga@acme.example');
  await page.getByLabel('Password').fill(PASSWORD);
  if (axe) await screenshot(page, `onestart-${label}-03-identity`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // First-party built-in client: no consent screen, straight back to the dashboard.
  await page.getByRole('heading', { level: 1, name: 'Welcome, Olga Owner' }).waitFor();
  assert.equal(new URL(page.url()).origin, s.dashboard);
  assert.match((await page.locator('main').textContent()) ?? '', /olga@acme\.example with the role owner/);
  if (axe) await screenshot(page, `onestart-${label}-04-home`);
  assert.deepEqual(
    consoleErrors.filter((e) => !/401|Failed to load resource/.test(e)),
    [],
    'no CSP violation or script error',
  );
  await page.context().close();
}

describe('platform start identity dashboard: one product from the first minute', () => {
  let database: FreshDatabase;
  const dataDir = tempDir('onestart-');
  let s: Started;
  let browser: Browser;

  before(async () => {
    database = await freshPostgres('onestart');
    s = await startBoth({ DATABASE_URL: database.url, DATA_DIR: dataDir.path });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.process.stop();
    await database?.drop();
    dataDir.remove();
  });

  test('the setup status asks for a password, and the identity client for the dashboard is built in', async () => {
    assert.deepEqual((await json(`${s.dashboard}/api/v1/setup`)).body, {
      setupRequired: true,
      platformAccount: true,
      minPasswordLength: 12,
    });
    const providers = (await json(`${s.dashboard}/api/v1/auth/providers`)).body.providers.map(
      (p: { id: string }) => p.id,
    );
    assert.deepEqual(providers, ['platform']);
    // The dashboard's sign-in goes to identity's authorization endpoint with the built-in client, PKCE and its own callback.
    const start = await fetch(`${s.dashboard}/api/v1/auth/platform`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const to = new URL(start.headers.get('location')!);
    assert.equal(to.origin, s.identity);
    assert.equal(to.searchParams.get('client_id'), 'platform-dashboard');
    assert.equal(to.searchParams.get('redirect_uri'), `${s.dashboard}/api/v1/auth/platform/callback`);
    assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
    // Identity accepts it (its sign-in page, not an error page).
    const authorize = await fetch(to, { redirect: 'manual' });
    assert.equal(authorize.status, 303);
    assert.match(authorize.headers.get('location')!, /\/interaction\//);
  });

  test("bad first-run input is a 400 in the dashboard's error shape, and nothing is made", async () => {
    const base = { tenantName: 'Acme', tenantSlug: 'acme', email: 'olga@acme.example', name: 'Olga' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [base, /^password: required/],
      [{ ...base, password: 'short', passwordConfirmation: 'short' }, /^password: must be at least 12 characters$/],
      [
        { ...base, password: PASSWORD, passwordConfirmation: `${PASSWORD}!` },
        /^passwordConfirmation: does not match the password$/,
      ],
      [{ ...base, password: PASSWORD }, /^passwordConfirmation: does not match the password$/],
      [{ ...base, password: '', passwordConfirmation: '' }, /password/],
      [{ ...base, password: 7, passwordConfirmation: 7 }, /password/],
    ];
    for (const [body, message] of cases) {
      const r = await json(`${s.dashboard}/api/v1/setup`, { method: 'POST', body: JSON.stringify(body) });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, message);
      assert.doesNotMatch(JSON.stringify(r.body), /long enough passphrase/, 'the password is never echoed');
    }
    assert.equal((await json(`${s.dashboard}/api/v1/setup`)).body.setupRequired, true);
  });

  test("in Chromium: owner with a password, then signed in through identity's page as that owner", async () => {
    await firstRunAndSignIn(browser, s, 'pg', true);
    const again = await json(`${s.dashboard}/api/v1/setup`, {
      method: 'POST',
      body: JSON.stringify({
        tenantName: 'Evil',
        tenantSlug: 'evil',
        email: 'eve@evil.example',
        name: 'Eve',
        password: PASSWORD,
        passwordConfirmation: PASSWORD,
      }),
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    const log = s.process.stdout() + s.process.stderr();
    assert.doesNotMatch(log, /long enough passphrase/i, 'the password is never logged');
  });
});

describe('platform start identity dashboard on the embedded default (PGlite under DATA_DIR, no DATABASE_URL)', () => {
  const dataDir = tempDir('onestart-embedded-');
  let s: Started;
  let browser: Browser;

  before(async () => {
    s = await startBoth({ DATA_DIR: dataDir.path, DASHBOARD_PLATFORM_DATA: 'false' });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.process.stop();
    dataDir.remove();
  });

  test('the same first run and sign-in through identity', async () => {
    assert.equal((await json(`${s.dashboard}/api/v1/setup`)).body.platformAccount, true);
    await firstRunAndSignIn(browser, s, 'embedded', false);
  });
});
