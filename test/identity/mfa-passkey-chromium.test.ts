import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { startServer, type Server } from './support.ts';
import { assertAccessible, authorizeUrl, callbackServer, focusedId, freshCode, screenshot } from './mfa-support.ts';
import { confirmEnrollment, pendingEnrollment, removeTotp } from '../../src/identity/mfa/totp.ts';

let server: Server;
let browser: Browser;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let clientId: string;
let benId: string;
const ben = { email: 'ben@example.com', password: 'ben has a long enough password' };

before(async () => {
  callback = await callbackServer();
  server = await startServer('idmfapasskey');
  benId = await server.createHuman(ben.email, ben.password);
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

/** A browser context with a virtual platform authenticator (DevTools protocol, WebAuthn domain) that holds passkeys and verifies the user. */
async function withAuthenticator(): Promise<{
  context: BrowserContext;
  page: Page;
  credentials(): Promise<{ credentialId: string; signCount: number }[]>;
}> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    context,
    page,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

async function openSignIn(page: Page): Promise<void> {
  await page.goto(authorizeUrl(server.issuer, clientId, callback.url));
  assert.equal(await page.title(), 'Sign in');
}

async function passwordStep(page: Page): Promise<void> {
  await openSignIn(page);
  await page.getByLabel('Email address').fill(ben.email);
  await page.getByLabel('Password').fill(ben.password);
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

async function alertText(page: Page): Promise<string> {
  const alert = page.locator('[role=alert]:not([hidden])');
  await alert.first().waitFor();
  return (await alert.first().textContent()) ?? '';
}

test('passkeys: registered on the security page, then sign in alone (usernameless) and serve as the second step; a regressed counter, a replayed answer and a removed passkey are refused', async () => {
  const { context, page, credentials } = await withAuthenticator();
  await passwordStep(page);
  await arrived(page);

  // Registration.
  await page.goto(`${server.issuer}/account/security`);
  await page.getByLabel(/Name of the new passkey/).fill('Laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').waitFor();
  assert.match((await page.getByRole('status').textContent())!, /Passkey "Laptop" added/);
  assert.equal(await page.locator('ul.passkeys li').count(), 1);
  await assertAccessible(page, 'security page with a passkey');
  await screenshot(page, 'passkey-1-registered');
  const [held] = await credentials();
  assert.ok(held, 'the authenticator holds the new passkey');
  const row = (
    await server.runtime.db.query<{
      identifier: string;
      principal_id: string;
      webauthn_public_key: Buffer;
      webauthn_credential_id: Buffer;
      webauthn_sign_count: string;
    }>(
      "SELECT identifier, principal_id, webauthn_public_key, webauthn_credential_id, webauthn_sign_count FROM credentials WHERE type = 'webauthn'",
    )
  ).rows;
  assert.equal(row.length, 1);
  assert.equal(row[0]!.principal_id, benId);
  assert.equal(row[0]!.webauthn_credential_id.toString('base64'), held.credentialId);
  assert.ok(row[0]!.webauthn_public_key.length > 30, 'the COSE public key is stored');

  // Usernameless sign-in from the sign-in page, by keyboard.
  await signOut(page);
  await openSignIn(page);
  await assertAccessible(page, 'sign-in page with the passkey button');
  await screenshot(page, 'passkey-2-sign-in');
  await page.getByLabel('Email address').focus();
  for (let i = 0; i < 4 && (await focusedId(page)) !== 'Use a passkey'; i++) await page.keyboard.press('Tab');
  assert.equal(await focusedId(page), 'Use a passkey', 'the passkey button is reached with Tab');
  let posted: string | undefined;
  await page.route('**/passkey', async (route) => {
    posted = route.request().postData() ?? undefined;
    await route.continue();
  });
  await page.keyboard.press('Enter');
  await arrived(page);
  await page.unroute('**/passkey');
  const sessions = await server.runtime.db.query<{ principal_id: string }>(
    'SELECT principal_id FROM login_sessions ORDER BY created_at DESC LIMIT 1',
  );
  assert.equal(sessions.rows[0]!.principal_id, benId, 'the passkey signed Ben in');
  assert.ok(posted, 'the passkey form was posted');
  const replayed = new URLSearchParams(posted).get('response')!;
  assert.ok(replayed.length > 100);

  // The same answer presented again, in a new sign-in request: its challenge was spent.
  await signOut(page);
  await openSignIn(page);
  const csrf = await page.locator('#passkey-signin input[name=csrf]').inputValue();
  const action = new URL((await page.locator('#passkey-signin').getAttribute('action'))!, server.issuer).href;
  const replay = await context.request.post(action, { form: { csrf, response: replayed }, maxRedirects: 0 });
  assert.equal(replay.status(), 400);
  assert.match(await replay.text(), /expired or was already used/);
  // A malformed answer gets a clear page, not a 500.
  const malformed = await context.request.post(action, {
    form: { csrf, response: '{"id":"abc","response":' },
    maxRedirects: 0,
  });
  assert.equal(malformed.status(), 400);
  assert.match(await malformed.text(), /could not be read/);

  // Passkey as the second step after the password.
  await page.getByLabel('Email address').fill(ben.email);
  await page.getByLabel('Password').fill(ben.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
  assert.equal(await page.getByLabel('Verification code').count(), 0, 'no code field without an authenticator app');
  await assertAccessible(page, 'second-factor page with a passkey');
  await screenshot(page, 'passkey-3-second-factor');
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await arrived(page);
  const counted = (
    await server.runtime.db.query<{ webauthn_sign_count: string; last_used_at: Date | null }>(
      "SELECT webauthn_sign_count, last_used_at FROM credentials WHERE type = 'webauthn'",
    )
  ).rows[0]!;
  assert.ok(counted.last_used_at, 'last_used_at is set');
  const [now] = await credentials();
  assert.equal(Number(counted.webauthn_sign_count), now!.signCount, 'the stored counter follows the authenticator');

  // A counter that does not move forward (a cloned authenticator) is refused.
  await server.runtime.db.query("UPDATE credentials SET webauthn_sign_count = 1000000 WHERE type = 'webauthn'");
  await signOut(page);
  await openSignIn(page);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  assert.match(await alertText(page), /counter that went backwards/);
  assert.equal(await page.title(), 'Error: Sign in');
  await assertAccessible(page, 'sign-in page with a refused passkey');
  await screenshot(page, 'passkey-4-counter-refused');

  // With an authenticator app too, the second step offers both: the code field and the passkey.
  await server.runtime.db.query("UPDATE credentials SET webauthn_sign_count = 0 WHERE type = 'webauthn'");
  const { db, secretKey } = server.runtime;
  const enrollment = await pendingEnrollment(db, secretKey, benId, ben.email, 'localhost');
  assert.ok(
    (await confirmEnrollment(db, secretKey, benId, enrollment.credentialId, freshCode(enrollment.secret, -1).code)).ok,
  );
  await passwordStep(page);
  await page.getByLabel('Verification code').waitFor();
  assert.equal(await focusedId(page), 'code', 'focus starts in the code field');
  await assertAccessible(page, 'second-factor page with a code field and a passkey');
  await screenshot(page, 'passkey-5-second-factor-both');
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await arrived(page);
  assert.ok(await removeTotp(db, benId, 'test'));

  // Removed on the security page: the authenticator still offers it, the service refuses it.
  await page.goto(`${server.issuer}/account/security`);
  await page.getByRole('button', { name: 'Remove passkey Laptop' }).click();
  await page.getByRole('status').waitFor();
  assert.equal(await page.locator('ul.passkeys li').count(), 0);
  await signOut(page);
  await openSignIn(page);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  assert.match(await alertText(page), /not registered/);
  // And the password alone signs in again (no second factor left).
  await page.getByLabel('Email address').fill(ben.email);
  await page.getByLabel('Password').fill(ben.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await arrived(page);
  await context.close();
});
