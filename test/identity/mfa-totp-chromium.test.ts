import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { startServer, type Server } from './support.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';
import { assertAccessible, authorizeUrl, callbackServer, focusedId, freshCode, screenshot } from './mfa-support.ts';

let server: Server;
let browser: Browser;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let clientId: string;
const ann = { email: 'ann@example.com', password: 'ann has a long enough password' };

before(async () => {
  callback = await callbackServer();
  server = await startServer('idmfatotp');
  await server.createHuman(ann.email, ann.password);
  clientId = (
    await server.registerApp({ name: 'Notebook', appType: 'web', redirectUris: [callback.url], firstParty: true })
  ).clientId;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  callback?.close();
});

/** Opens the app's authorization request and signs in with the password; returns at the page that follows. */
async function passwordStep(page: Page): Promise<void> {
  await page.goto(authorizeUrl(server.issuer, clientId, callback.url));
  assert.equal(await page.title(), 'Sign in');
  await page.getByLabel('Email address').fill(ann.email);
  await page.getByLabel('Password').fill(ann.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForLoadState();
}

async function arrived(page: Page): Promise<void> {
  await page.waitForURL(`${callback.url}**`);
  assert.equal(await page.title(), 'done');
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${server.issuer}/signout`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Signed out' }).waitFor();
}

async function enterCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Verification code').fill(code);
  await page.keyboard.press('Enter');
  await page.waitForLoadState();
}

test('TOTP: enrolled on the security page, then asked after the password; a used code and a used recovery code are refused', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();

  // Signed in with the password alone while no factor is set up.
  await passwordStep(page);
  await arrived(page);

  await page.goto(`${server.issuer}/account/security`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign-in security');
  assert.ok((await page.textContent('main'))!.includes('No authenticator app is set up.'));
  await assertAccessible(page, 'security page');
  await screenshot(page, 'totp-1-security-page');

  // Keyboard: the set-up link is reachable with Tab and opens with Enter.
  let found = false;
  for (let i = 0; i < 6 && !found; i++) {
    await page.keyboard.press('Tab');
    found = (await focusedId(page)) === 'Set up an authenticator app';
  }
  assert.ok(found, 'the set-up link takes focus from the keyboard');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Set up an authenticator app' }).waitFor();
  assert.equal(await focusedId(page), 'code', 'focus starts in the code field');
  const qr = page.getByRole('img', { name: /QR code/ });
  assert.match((await qr.getAttribute('src'))!, /^data:image\/svg\+xml;base64,/);
  const secret = (await page.locator('#setup-key').textContent())!.replace(/\s+/g, '');
  assert.match(secret, /^[A-Z2-7]{32}$/, 'the setup key is shown as text for those who cannot scan');
  await assertAccessible(page, 'TOTP enrollment page');
  await screenshot(page, 'totp-2-enroll');

  // A wrong first code is refused with an announced error tied to the field.
  const now = TOTP.counter({ period: 30 });
  const valid = new Set(
    [-1, 0, 1].map((d) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: (now + d) * 30_000 })),
  );
  const wrong = ['000000', '111111', '222222', '333333'].find((c) => !valid.has(c))!;
  await page.getByLabel('Code from the app').fill(wrong);
  await page.keyboard.press('Enter');
  await page.waitForLoadState();
  assert.match((await page.getByRole('alert').textContent())!, /not correct/);
  assert.equal(await page.getByLabel('Code from the app').getAttribute('aria-invalid'), 'true');
  assert.equal(
    (await page.locator('#setup-key').textContent())!.replace(/\s+/g, ''),
    secret,
    'the same enrollment is kept after a wrong code',
  );
  await assertAccessible(page, 'TOTP enrollment page with an error');

  let last = freshCode(secret, -1);
  await page.getByLabel('Code from the app').fill(last.code);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
  const codes = (await page.locator('ul.codes li').allTextContents()).map((c) => c.trim());
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  await assertAccessible(page, 'recovery codes page');
  await screenshot(page, 'totp-3-recovery-codes');

  // Stored sealed and hashed, never in clear.
  const db = server.runtime.db;
  const stored = (await db.query<{ secret_hash: string }>("SELECT secret_hash FROM credentials WHERE type = 'totp'"))
    .rows;
  assert.equal(stored.length, 1);
  assert.ok(!stored[0]!.secret_hash.includes(secret) && stored[0]!.secret_hash.startsWith('v1.'));
  const hashes = (await db.query<{ code_hash: string }>('SELECT code_hash FROM mfa_recovery_codes')).rows.map(
    (r) => r.code_hash,
  );
  assert.equal(hashes.length, 10);
  for (const c of codes) assert.ok(!hashes.some((h) => h.includes(c) || h.includes(c.replace('-', ''))));

  // Next sign-in: the password, then the second step.
  await signOut(page);
  await passwordStep(page);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Two-step verification');
  assert.equal(await focusedId(page), 'code');
  await assertAccessible(page, 'second-factor page');
  await screenshot(page, 'totp-4-second-factor');

  // The code used at enrollment is refused: one use per time step.
  await enterCode(page, last.code);
  assert.match((await page.getByRole('alert').textContent())!, /already used/);
  assert.equal(await page.getByLabel('Verification code').getAttribute('aria-invalid'), 'true');
  await assertAccessible(page, 'second-factor page with an error');
  await screenshot(page, 'totp-5-code-reused');

  last = freshCode(secret, last.step);
  await enterCode(page, last.code);
  await arrived(page);

  // A recovery code signs in once.
  await signOut(page);
  await passwordStep(page);
  await enterCode(page, codes[0]!.toUpperCase());
  await arrived(page);

  await signOut(page);
  await passwordStep(page);
  await enterCode(page, codes[0]!);
  assert.match((await page.getByRole('alert').textContent())!, /not correct/);
  await enterCode(page, codes[1]!.replace('-', ' '));
  await arrived(page);

  await page.goto(`${server.issuer}/account/security`);
  assert.ok((await page.textContent('main'))!.includes('Unused recovery codes: 8'));
  // A button alone in its form lines up with the text above it (the spacing meant for Deny beside Allow pushed it right).
  const left = async (locator: ReturnType<typeof page.locator>) => (await locator.boundingBox())!.x;
  assert.equal(
    await left(page.getByRole('button', { name: 'Remove the authenticator app' })),
    await left(page.getByRole('heading', { name: 'Authenticator app' })),
  );

  // Removing needs a recent second step: with an old one the page asks to sign in again, and nothing is removed.
  await db.query("UPDATE login_sessions SET second_factor_at = now() - interval '1 hour'");
  await page.getByRole('button', { name: 'Remove the authenticator app' }).click();
  await page.getByRole('heading', { level: 1, name: 'Confirm it is you' }).waitFor();
  assert.ok(await page.getByRole('link', { name: 'Sign in again to confirm' }).isVisible());
  await assertAccessible(page, 'confirm-it-is-you page');
  await screenshot(page, 'totp-6-confirm-removal');
  assert.equal((await db.query("SELECT 1 FROM credentials WHERE type = 'totp' AND NOT revoked")).rowCount, 1);
  await db.query('UPDATE login_sessions SET second_factor_at = now()');
  await page.goto(`${server.issuer}/account/security`);

  // Removing the factor: the password alone signs in again.
  await page.getByRole('button', { name: 'Remove the authenticator app' }).click();
  await page.getByRole('status').waitFor();
  assert.match((await page.getByRole('status').textContent())!, /removed/);
  await assertAccessible(page, 'security page after removal');
  await signOut(page);
  await passwordStep(page);
  await arrived(page);
  const row = (
    await db.query<{ revoked: boolean; revoked_reason: string }>(
      "SELECT revoked, revoked_reason FROM credentials WHERE type = 'totp'",
    )
  ).rows[0]!;
  assert.deepEqual(row, { revoked: true, revoked_reason: 'user_removed' });

  // A scan of every table of the service: no setup key, recovery code or login-session cookie in clear.
  const cookie = (await context.cookies(server.issuer)).find((c) => c.name === '__Host-svc_login')!.value;
  const needles = [secret, secret.toLowerCase(), ...codes, ...codes.map((c) => c.replace('-', '')), cookie];
  const tables = (
    await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'identity' AND table_type = 'BASE TABLE'",
    )
  ).rows;
  assert.ok(tables.some((t) => t.table_name === 'mfa_recovery_codes'));
  for (const { table_name } of tables) {
    const rows = (await db.query<{ row: string }>(`SELECT t::text AS row FROM identity."${table_name}" t`)).rows;
    for (const { row } of rows)
      for (const n of needles) assert.ok(!row.includes(n), `${table_name} holds a secret in clear`);
  }
  await context.close();
});

test('in Chromium with a French browser: the authenticator set-up, recovery codes, removal and passkey refusals in French, accessible', async () => {
  const bea = { email: 'bea@example.com', password: 'bea a un mot de passe assez long' };
  await server.createHuman(bea.email, bea.password);
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.goto(`${server.issuer}/account/security`);
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill(bea.email);
  await page.getByLabel('Mot de passe').fill(bea.password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Se connecter' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Sécurité de connexion' }).waitFor();
  const messages = JSON.parse((await page.locator('#passkey-add').getAttribute('data-messages'))!);
  assert.equal(messages.unsupported, fr.passkeys.unsupported, 'the passkey script speaks the page’s language');

  // A passkey form sent without the browser's answer (no script ran): refused in French.
  await Promise.all([page.waitForNavigation(), page.evaluate('document.getElementById("passkey-add").submit()')]);
  assert.equal(await page.getByRole('alert').first().textContent(), fr.passkeys.missing);
  await checkFrenchPage(page, 'French security page with a passkey refusal');

  await page.getByRole('link', { name: fr.security.setUpApp }).click();
  await page.getByRole('heading', { level: 1, name: 'Configurer une application d’authentification' }).waitFor();
  await page.getByRole('img', { name: fr.totp.qrAlt }).waitFor();
  await checkFrenchPage(page, 'French authenticator set-up page');
  const secret = (await page.locator('#setup-key').textContent())!.replace(/\s+/g, '');
  await page.getByLabel('Code de l’application').fill('12');
  await page.getByRole('button', { name: 'Activer' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), fr.totp.sixDigits);
  assert.equal(await page.title(), fr.totp.errorTitle);
  await checkFrenchPage(page, 'French authenticator set-up page with an error');
  await page.getByLabel('Code de l’application').fill(freshCode(secret, -1).code);
  await page.getByRole('button', { name: 'Activer' }).click();
  await page.getByRole('heading', { level: 1, name: 'Enregistrez vos codes de secours' }).waitFor();
  await page.getByRole('list', { name: 'Codes de secours' }).waitFor();
  await checkFrenchPage(page, 'French recovery codes page');

  // Removing without a recent second step: the French page asking to confirm.
  await page.getByRole('link', { name: fr.totp.saved }).click();
  await page.getByRole('button', { name: fr.security.removeApp }).click();
  await page.getByRole('heading', { level: 1, name: 'Confirmez que c’est bien vous' }).waitFor();
  await page.getByRole('link', { name: fr.totp.confirmLink }).waitFor();
  await checkFrenchPage(page, 'French confirm-it-is-you page');
  await server.runtime.db.query('UPDATE login_sessions SET second_factor_at = now()');
  await page.goto(`${server.issuer}/account/security`);
  await page.getByRole('button', { name: fr.security.removeApp }).click();
  await page.getByRole('status').waitFor();
  assert.equal(await page.getByRole('status').textContent(), fr.totp.removed);
  await context.close();
});
