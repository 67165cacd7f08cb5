import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { contrastRatio } from '../../src/identity/apps/brand.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { assertAccessible, screenshot } from './a11y.ts';
import { authorizeUrl, callbackServer } from './mfa-support.ts';
import { signInOnPage } from './account-support.ts';

/** An app's brand colour (src/identity/apps/brand.ts): accepted only with enough contrast, shown on its sign-in and consent pages. */

const ADMIN_TOKEN = 'admin-token-for-the-branding-test-0123456789ab';
let server: Server;
let browser: Browser;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let app: { id: string; clientId: string };
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);
const PURPLE = '#6b21a8';

before(async () => {
  callback = await callbackServer();
  server = await startServer('idbranding', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  await server.createHuman('bea@example.com', 'bea has a long password');
  // A third-party app: its consent page is shown.
  app = await server.registerApp({ name: 'Sketchbook', appType: 'web', redirectUris: [callback.url] });
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  callback?.close();
});

test('contrast is WCAG 2.x: white on black 21:1, white on white 1:1, the service blue over 4.5:1', () => {
  assert.equal(contrastRatio('#ffffff', '#000000'), 21);
  assert.equal(contrastRatio('#ffffff', '#ffffff'), 1);
  assert.ok(contrastRatio('#0b57d0', '#ffffff') > 4.5);
});

test('a brand colour is accepted only when white text on it reaches 4.5:1; 400 saying why otherwise', async () => {
  const set = (brand_color: unknown) => api(`/applications/${app.id}`, { method: 'PATCH', body: { brand_color } });
  const yellow = await set('#FFCC00');
  assert.equal(yellow.status, 400);
  assert.equal(yellow.body.error.code, 'VALIDATION_ERROR');
  assert.match(
    yellow.body.error.message,
    /brand_color #FFCC00 gives white text a contrast of 1\.\d\d:1, below the 4\.5:1/,
  );
  for (const bad of ['red', '#12345', 'url(javascript:x)', '#6b21a8;color:red']) {
    const r = await set(bad);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  assert.equal((await api(`/applications/${app.id}`)).body.brand_color, null, 'nothing was written');
  const ok = await set(PURPLE.toUpperCase());
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.brand_color, PURPLE);
});

async function checkPage(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}

test("in Chromium: the app's sign-in and consent pages wear its colour, readable light and dark", async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, app.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  // The primary button's background as Chromium paints it.
  const background = () =>
    page.evaluate("getComputedStyle(document.querySelector('button.primary')).backgroundColor") as Promise<string>;
  assert.equal(await background(), 'rgb(107, 33, 168)');
  await checkPage(page, 'branded sign-in page');
  await screenshot(page, 'branded-sign-in');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.notEqual(await background(), 'rgb(107, 33, 168)', 'the dark scheme keeps its own colours');
  await page.emulateMedia({ colorScheme: 'light' });
  await signInOnPage(page, { email: 'bea@example.com', password: 'bea has a long password' });
  await page.getByRole('heading', { level: 1, name: 'Allow Sketchbook to access your account?' }).waitFor();
  assert.equal(await background(), 'rgb(107, 33, 168)');
  await checkPage(page, 'branded consent page');
  await screenshot(page, 'branded-consent');
  await context.close();
});
