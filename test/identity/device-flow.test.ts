import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as wait } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { startServer, type Server } from './support.ts';
import { assertAccessible, focused, screenshot } from './a11y.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';
import { signInOnPage } from './account-support.ts';

/** Device sign-in (RFC 8628): a CLI-like client polls the token endpoint while a person approves it in Chromium. */

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
// The interval a device must keep between polls: short here, so the client's own pacing keeps the test quick.
const INTERVAL = 1;
let server: Server;
let browser: Browser;
let clientId: string;
const ada = { email: 'ada@example.com', password: 'ada has a long password' };

before(async () => {
  server = await startServer('iddevice', { IDENTITY_DEVICE_POLL_INTERVAL: String(INTERVAL) });
  await server.createHuman(ada.email, ada.password);
  clientId = (
    await server.registerApp({
      name: 'Platform CLI',
      appType: 'native',
      redirectUris: ['http://127.0.0.1/callback'],
      firstParty: true,
    })
  ).clientId;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const post = (path: string, form: Record<string, string>) =>
  fetch(`${server.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/** What the CLI does first: asks for a device code and the user code to show. */
async function startDevice(scope = 'openid offline_access') {
  const r = await post('/oauth/device/auth', { client_id: clientId, scope });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
  };
}
const poll = (deviceCode: string) =>
  post('/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

/** The CLI's loop: poll, keep the interval (5 s more after a slow_down, as RFC 8628 section 3.5 says), until an answer. */
async function pollUntilDone(deviceCode: string, interval: number) {
  let pace = interval;
  for (let polls = 0; ; polls++) {
    assert.ok(polls < 60, 'no answer but pending after 60 polls');
    await wait(pace * 1000);
    const r = await poll(deviceCode);
    if (r.body.error === 'authorization_pending') continue;
    if (r.body.error === 'slow_down') {
      pace += 5;
      continue;
    }
    return r;
  }
}

async function checkPage(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}

test('discovery advertises the device endpoint and grant; a native app gets the grant', async () => {
  const d = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as any;
  assert.equal(d.device_authorization_endpoint, `${server.issuer}/oauth/device/auth`);
  assert.ok(d.grant_types_supported.includes(DEVICE_GRANT));
  const web = await server.registerApp({ name: 'Web', appType: 'web', redirectUris: ['https://web.example/cb'] });
  const refused = await fetch(`${server.issuer}/oauth/device/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${web.clientId}:${web.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ scope: 'openid' }),
  });
  const answer = (await refused.json()) as any;
  assert.equal(refused.status, 400);
  assert.equal(answer.error, 'unauthorized_client', `only native apps use the device grant: ${JSON.stringify(answer)}`);
});

test('in Chromium: the person types the code, signs in and approves while the CLI polls; then the CLI gets tokens', async () => {
  const device = await startDevice();
  assert.match(device.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  assert.equal(device.verification_uri, `${server.issuer}/oauth/device`);
  assert.equal(device.expires_in, 600);
  assert.equal(device.interval, INTERVAL);

  // Before the person did anything: pending; a poll right after the previous one: slow_down.
  const first = await poll(device.device_code);
  assert.equal(first.status, 400);
  assert.equal(first.body.error, 'authorization_pending');
  const tooSoon = await poll(device.device_code);
  assert.equal(tooSoon.status, 400);
  assert.equal(tooSoon.body.error, 'slow_down');
  // The CLI keeps polling, at its pace, while the person approves.
  const tokens = pollUntilDone(device.device_code, INTERVAL);

  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(device.verification_uri);
  await page.getByRole('heading', { level: 1, name: 'Connect a device' }).waitFor();
  assert.equal(await focused(page), 'user_code');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Continue');
  await checkPage(page, 'device code page');
  await screenshot(page, 'device-code');

  // A wrong code: the page again, saying so, the field marked; nothing else happens.
  await page.getByLabel('Code shown on your device').fill('BBBB-BBBB');
  const wrong = page.waitForResponse((r) => r.url().endsWith('/oauth/device') && r.request().method() === 'POST');
  await page.keyboard.press('Enter');
  assert.equal((await wrong).status(), 400);
  await page.getByRole('alert').waitFor();
  assert.match((await page.getByRole('alert').textContent())!, /This code is not right/);
  assert.equal(await page.getByLabel('Code shown on your device').getAttribute('aria-invalid'), 'true');
  await checkPage(page, 'device code page with an error');

  // Typed as a person might: small letters, no dash.
  await page.getByLabel('Code shown on your device').fill(device.user_code.replace('-', '').toLowerCase());
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Connect Platform CLI?' }).waitFor();
  assert.equal(await page.locator('p.device-code').textContent(), device.user_code);
  assert.equal(await focused(page), 'Continue');
  await checkPage(page, 'device confirm page');
  await screenshot(page, 'device-confirm');
  await page.getByRole('button', { name: 'Continue' }).click();

  await signInOnPage(page, ada);
  await page.getByRole('heading', { level: 1, name: 'Device connected' }).waitFor();
  assert.match((await page.getByRole('status').textContent())!, /Platform CLI is signed in/);
  await checkPage(page, 'device connected page');
  await screenshot(page, 'device-connected');
  await context.close();

  const got = await tokens;
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.ok(got.body.access_token);
  assert.ok(got.body.id_token);
  assert.ok(got.body.refresh_token);
  const who = await server.runtime.verifier(got.body.access_token);
  assert.ok(who, 'a live token of the person');
  // The device code is spent: polling again is refused.
  await wait(INTERVAL * 1000);
  const again = await poll(device.device_code);
  assert.equal(again.status, 400);
  assert.equal(again.body.error, 'invalid_grant');
});

test('in Chromium with a French browser: the device pages in French, accessible; the code and the app name as they are', async () => {
  const device = await startDevice();
  const context = await frenchContext(browser);
  const page = await context.newPage();
  const res = await page.goto(device.verification_uri);
  assert.match(res?.headers().vary ?? '', /accept-language/i);
  await page.getByRole('heading', { level: 1, name: 'Connecter un appareil' }).waitFor();
  await checkFrenchPage(page, 'French device code page');
  await page.getByRole('button', { name: 'Continuer' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), fr.device.noCode);
  assert.equal(await page.title(), fr.device.errorTitle);
  await checkFrenchPage(page, 'French device code page with an error');
  await page.getByLabel('Code affiché sur votre appareil').fill(device.user_code);
  await page.getByRole('button', { name: 'Continuer' }).click();
  await page.getByRole('heading', { level: 1, name: 'Connecter Platform CLI\u00a0?' }).waitFor();
  assert.equal(await page.locator('p.device-code').textContent(), device.user_code);
  await page.getByRole('button', { name: 'Annuler' }).waitFor();
  await checkFrenchPage(page, 'French device confirm page');
  await page.getByRole('button', { name: 'Continuer' }).click();
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByLabel('Adresse e-mail').fill(ada.email);
  await page.getByLabel('Mot de passe').fill(ada.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { level: 1, name: 'Appareil connecté' }).waitFor();
  assert.equal(
    await page.getByRole('status').textContent(),
    'Platform CLI est connecté. Revenez à votre appareil\u00a0; vous pouvez fermer cette page.',
  );
  await checkFrenchPage(page, 'French device connected page');
  await context.close();
});

test('cancelled on the confirm page: the CLI is told access_denied; a used code cannot be typed again', async () => {
  const device = await startDevice('openid');
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(device.verification_uri_complete);
  await page.getByRole('heading', { level: 1, name: 'Connect Platform CLI?' }).waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('heading', { level: 1, name: 'Connect a device' }).waitFor();
  assert.match((await page.getByRole('alert').textContent())!, /You cancelled the sign-in/);
  await checkPage(page, 'device sign-in cancelled');
  const told = await pollUntilDone(device.device_code, INTERVAL);
  assert.equal(told.status, 400);
  assert.equal(told.body.error, 'access_denied');

  await page.getByLabel('Code shown on your device').fill(device.user_code);
  await page.keyboard.press('Enter');
  await page.getByRole('alert').waitFor();
  assert.match((await page.getByRole('alert').textContent())!, /This code was used already/);
  await context.close();
});

test('bad inputs: an empty or expired code on the page, an unknown or expired device code at the token endpoint', async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.issuer}/oauth/device`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), 'Enter the code your device shows.');

  // An expired code: the provider's own record of it, with its expiry moved into the past.
  const device = await startDevice('openid');
  const provider = server.runtime.holder.current;
  const code = await provider.DeviceCode.findByUserCode(device.user_code.replace('-', ''), { ignoreExpiration: true });
  assert.ok(code);
  code.exp = Math.floor(Date.now() / 1000) - 1;
  await code.save();
  await page.getByLabel('Code shown on your device').fill(device.user_code);
  await page.keyboard.press('Enter');
  await page.getByText('This code has expired').waitFor();
  await context.close();
  const expired = await poll(device.device_code);
  assert.equal(expired.status, 400);
  assert.equal(expired.body.error, 'expired_token');

  const unknown = await poll('not-a-device-code');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error, 'invalid_grant');
  const missing = await post('/oauth/token', { grant_type: DEVICE_GRANT, client_id: clientId });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error, 'invalid_request');
  const noClient = await post('/oauth/device/auth', { client_id: 'nobody', scope: 'openid' });
  assert.equal(noClient.status, 401);
  assert.equal(noClient.body.error, 'invalid_client');
});

// Last in the file: it leaves this client address waiting at the code page.
test('guessing codes: after a few unknown codes from one address, the page makes it wait (429)', async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.issuer}/oauth/device`);
  let status = 0;
  for (let i = 0; i < 15 && status !== 429; i++) {
    await page.getByLabel('Code shown on your device').fill('BBBB-BBBB');
    const answer = page.waitForResponse((r) => r.url().endsWith('/oauth/device') && r.request().method() === 'POST');
    await page.keyboard.press('Enter');
    status = (await answer).status();
  }
  assert.equal(status, 429);
  await page.getByRole('alert').waitFor();
  assert.match(
    (await page.getByRole('alert').textContent())!,
    /Too many wrong codes from here\. Wait \d+ seconds? and try again\./,
  );
  await checkPage(page, 'device code page, too many guesses');
  await context.close();
});
