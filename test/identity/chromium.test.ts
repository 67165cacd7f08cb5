import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import * as oidc from 'openid-client';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type Server } from './support.ts';

let server: Server;
let browser: Browser;
// The app's callback is a real listener: the browser's arrival there is the result. (Playwright's page.route is not
// offered requests that come from a redirect, so with some Chromium builds an intercepted callback was never reached.)
let appServer: HttpServer;
let CALLBACK: string;
const arrivals: string[] = [];
const frank = { email: 'frank@example.com', password: 'frank picked a long password' };
let frankId: string;

before(async () => {
  appServer = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', CALLBACK).href);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!DOCTYPE html><html lang="en"><title>done</title><h1>done</h1></html>');
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  CALLBACK = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;
  server = await startServer('idchromium');
  frankId = await server.createHuman(frank.email, frank.password);
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  appServer?.close();
});

test('headless Chromium signs in and consents through the real pages', async () => {
  const app = await server.registerApp({
    name: 'Gallery',
    appType: 'web',
    redirectUris: [CALLBACK],
    description: 'Shares your photos',
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url.href);
  assert.equal(await page.title(), 'Sign in');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.locator('h1').textContent(), 'Sign in');
  assert.equal(
    await page.evaluate('document.activeElement && document.activeElement.id'),
    'email',
    'focus starts on the first field',
  );
  await page.keyboard.press('Tab');
  assert.equal(
    await page.evaluate('document.activeElement && document.activeElement.id'),
    'password',
    'focus order follows the form',
  );
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate('document.activeElement && document.activeElement.textContent'), 'Sign in');

  await page.getByLabel('Email address').fill(frank.email);
  await page.getByLabel('Password').fill('not the password at all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The email address or the password is not correct.');
  assert.equal(await page.getByLabel('Email address').inputValue(), frank.email, 'the email is kept');
  assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Password').fill(frank.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByRole('heading', { level: 1 }).waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Allow Gallery to access your account?');
  const items = await page.locator('ul.scopes li').allTextContents();
  assert.equal(items.length, 3);
  assert.ok(items.some((i) => i.includes('See your email address')));

  const cookies = await context.cookies(server.issuer);
  const login = cookies.find((c) => c.name === '__Host-svc_login');
  assert.ok(login, 'Chromium kept the __Host- cookie on http://localhost');
  assert.equal(login.secure, true);
  assert.equal(login.httpOnly, true);
  assert.equal(login.sameSite, 'Lax');
  assert.equal(login.path, '/');

  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${CALLBACK}**`);
  assert.equal(await page.title(), 'done');
  const callback = arrivals.find((a) => a.startsWith(`${CALLBACK}?`));
  assert.ok(callback, 'the browser came back to the app');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  assert.equal(tokens.claims()!.sub, frankId);
  await context.close();
});
