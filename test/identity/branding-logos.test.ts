import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { managementApi, startServer, type Server } from './support.ts';
import { assertAccessible, screenshot } from './a11y.ts';
import { authorizeUrl, callbackServer } from './mfa-support.ts';
import { signInOnPage } from './account-support.ts';

/**
 * Logos (apps/logo.ts) and organization branding (organizations/branding.ts): an app's or organization's logo on its
 * sign-in and consent pages, https only; an authorization request naming an organization wears the organization's
 * colour and logo before the app's; the dark scheme takes a brand colour only where the buttons stay visible.
 */

const ADMIN_TOKEN = 'admin-token-for-the-logo-test-0123456789abcdef';
const PURPLE = '#6b21a8';
/** White text on it 5.2:1, and 3.15:1 against the dark card: worn in the dark scheme too. */
const BLUE = '#2563eb';
const HOSTILE_NAME = '"><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const HOSTILE_LOGO = 'https://logo.invalid/a.png?x="onerror="window.__pwned=3';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#1e6b34"/></svg>';

let server: Server;
let browser: Browser;
let logoServer: HttpServer;
let logoUrl: string;
let callback: Awaited<ReturnType<typeof callbackServer>>;
let app: { id: string; clientId: string };
let hostile: { id: string; clientId: string };
let bea: string;
const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

before(async () => {
  callback = await callbackServer();
  logoServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(LOGO_SVG));
  await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
  logoUrl = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}/logo.svg`;
  server = await startServer('idlogos', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  bea = await server.createHuman('bea@example.com', 'bea has a long password');
  app = await server.registerApp({ name: 'Sketchbook', appType: 'web', redirectUris: [callback.url] });
  hostile = await server.registerApp({ name: HOSTILE_NAME, appType: 'web', redirectUris: [callback.url] });
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  logoServer?.close();
  callback?.close();
});

const BAD_LOGOS = [
  'javascript:window.__pwned=4',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:image/svg+xml,<svg onload="alert(1)"/>',
  'http://logo.example/a.png',
  'ftp://logo.example/a.png',
  'https://user:secret@logo.example/a.png',
  '//logo.example/a.png',
  'not a url',
];

test('a logo_url is accepted only as https (http only on localhost); 400 otherwise, nothing written', async () => {
  for (const bad of BAD_LOGOS) {
    const r = await api(`/applications/${app.id}`, { method: 'PATCH', body: { logo_url: bad } });
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.match(r.body.error.message, /logo_url must be an absolute https URL/);
  }
  const made = await api('/applications', {
    method: 'POST',
    body: { name: 'Bad logo', app_type: 'machine', logo_url: 'javascript:alert(1)' },
  });
  assert.equal(made.status, 400);
  assert.equal((await api(`/applications/${app.id}`)).body.logo_url, null, 'nothing was written');
  const ok = await api(`/applications/${app.id}`, {
    method: 'PATCH',
    body: { logo_url: logoUrl, brand_color: PURPLE },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.logo_url, logoUrl);
  const https = await api(`/applications/${hostile.id}`, { method: 'PATCH', body: { logo_url: HOSTILE_LOGO } });
  assert.equal(https.status, 200, JSON.stringify(https.body));
});

test("an organization's brand colour and logo: the same rules, 400 with the contrast ratio", async () => {
  const yellow = await api('/organizations', {
    method: 'POST',
    body: { name: 'Acme', slug: 'acme', brand_color: '#ffcc00' },
  });
  assert.equal(yellow.status, 400);
  assert.match(
    yellow.body.error.message,
    /brand_color #ffcc00 gives white text a contrast of 1\.\d\d:1, below the 4\.5:1/,
  );
  const org = await api('/organizations', { method: 'POST', body: { name: 'Acme Corp', slug: 'acme' } });
  assert.equal(org.status, 201, JSON.stringify(org.body));
  assert.equal(org.body.brand_color, null);
  for (const body of [
    { brand_color: 'red' },
    { brand_color: '#fff' },
    { brand_color: '#eeeeee' },
    ...BAD_LOGOS.map((logo_url) => ({ logo_url })),
  ]) {
    const r = await api(`/organizations/${org.body.id}`, { method: 'PATCH', body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  const set = await api(`/organizations/${org.body.id}`, {
    method: 'PATCH',
    body: { brand_color: BLUE.toUpperCase(), logo_url: `${logoUrl}?org` },
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal(set.body.brand_color, BLUE);
  const member = await api(`/organizations/${org.body.id}/members`, { method: 'POST', body: { principal_id: bea } });
  assert.equal(member.status, 201, JSON.stringify(member.body));
});

const primaryBackground = (page: Page) =>
  page.evaluate("getComputedStyle(document.querySelector('button.primary')).backgroundColor") as Promise<string>;
const logo = (page: Page) =>
  page.evaluate(() => {
    const img = document.querySelector('img.logo') as HTMLImageElement | null;
    return img && { src: img.getAttribute('src'), alt: img.getAttribute('alt'), width: img.naturalWidth };
  });

async function checkPage(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  await page.emulateMedia({ colorScheme: 'dark' });
  await assertAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const width = await page.evaluate('document.documentElement.scrollWidth');
  assert.ok((width as number) <= 320, `${what}: no sideways scrolling at 320 px (${width})`);
}

test("in Chromium: the app's logo above its sign-in and consent pages, its name as the alt text", async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, app.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByRole('img', { name: 'Sketchbook' }).waitFor();
  await page.waitForFunction("document.querySelector('img.logo').complete");
  assert.deepEqual(await logo(page), { src: logoUrl, alt: 'Sketchbook', width: 120 }, 'the CSP let the logo load');
  assert.equal(await primaryBackground(page), 'rgb(107, 33, 168)');
  await checkPage(page, 'sign-in page with a logo');
  await screenshot(page, 'logo-sign-in');
  await signInOnPage(page, { email: 'bea@example.com', password: 'bea has a long password' });
  await page.getByRole('heading', { level: 1, name: 'Allow Sketchbook to access your account?' }).waitFor();
  assert.equal((await logo(page))?.alt, 'Sketchbook');
  await checkPage(page, 'consent page with a logo');
  await context.close();
});

test('in Chromium: a hostile app name and logo address stay text and attribute, no script runs', async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 } });
  const page = await context.newPage();
  const response = await page.goto(authorizeUrl(server.issuer, hostile.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  const csp = response?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /img-src data: https: http:\/\/localhost:\* http:\/\/127\.0\.0\.1:\*;/);
  assert.match(csp, /script-src 'self';/, 'images from https, scripts still only from here');
  const shown = await logo(page);
  assert.equal(shown?.src, HOSTILE_LOGO);
  assert.equal(shown?.alt, HOSTILE_NAME);
  assert.equal(await page.locator('img').count(), 1, 'no element was injected');
  assert.equal(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
  await context.close();
});

test('in Chromium: a request naming the organization wears its colour and logo, light and dark', async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const url = new URL(authorizeUrl(server.issuer, app.clientId, callback.url));
  url.searchParams.set('organization', 'acme');
  await page.goto(url.href);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.waitForFunction("document.querySelector('img.logo').complete");
  assert.deepEqual(await logo(page), { src: `${logoUrl}?org`, alt: 'Acme Corp', width: 120 });
  assert.equal(await primaryBackground(page), 'rgb(37, 99, 235)', "the organization's colour before the app's");
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await primaryBackground(page), 'rgb(37, 99, 235)', 'it stands out from the dark card by 3:1');
  await page.emulateMedia({ colorScheme: 'light' });
  await checkPage(page, "organization's sign-in page");
  await screenshot(page, 'org-sign-in');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'org-sign-in-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await signInOnPage(page, { email: 'bea@example.com', password: 'bea has a long password' });
  await page.getByRole('heading', { level: 1, name: 'Allow Sketchbook to access your account?' }).waitFor();
  assert.equal((await logo(page))?.alt, 'Acme Corp');
  assert.equal(await primaryBackground(page), 'rgb(37, 99, 235)');
  await checkPage(page, "organization's consent page");
  await screenshot(page, 'org-consent');
  await context.close();
});

test("in Chromium: the app's colour stays off the dark scheme when it would not stand out there", async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 800 }, colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server.issuer, app.clientId, callback.url));
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  assert.equal(await primaryBackground(page), 'rgb(168, 199, 250)', "the dark scheme's own (#a8c7fa)");
  await context.close();
});
