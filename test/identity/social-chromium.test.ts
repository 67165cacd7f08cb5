import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import * as oidc from 'openid-client';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { freePort, startServer, type Server } from './support.ts';
import { assertAccessible } from '../support/axe.ts';
import { checkFrenchPage, frenchContext } from './french.ts';
import { fr } from '../../src/identity/web/i18n/fr.ts';

// Social sign-in through the real pages in Chromium, with the OpenID issuer an operator configured being
// a second instance of the platform's identity service (on 127.0.0.1, so the two keep their cookies apart).
let upstream: Server;
let server: Server;
let browser: Browser;
let appServer: HttpServer;
let CALLBACK: string;
const arrivals: string[] = [];
const hedy = { email: 'hedy@example.com', password: 'hedy chose a long password' };
let hedyHere: string;

before(async () => {
  appServer = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', CALLBACK).href);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!DOCTYPE html><html lang="en"><title>done</title><h1>done</h1></html>');
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  CALLBACK = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;

  upstream = await startServer('idsocialup', {}, { host: '127.0.0.1' });
  await upstream.createHuman(hedy.email, hedy.password);
  const port = await freePort();
  const client = await upstream.registerApp({
    name: 'Platform SSO',
    appType: 'web',
    redirectUris: [`http://localhost:${port}/upstream/platform/callback`],
    firstParty: true,
    allowedScopes: ['openid', 'email', 'profile'],
  });
  server = await startServer(
    'idsocialch',
    {
      IDENTITY_OIDC_PROVIDERS: JSON.stringify([
        {
          id: 'platform',
          issuer: upstream.issuer,
          clientId: client.clientId,
          clientSecret: client.secret,
          name: 'Platform SSO',
        },
      ]),
    },
    { port },
  );
  hedyHere = await server.createHuman(hedy.email, 'a different password here');
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await upstream?.close();
  appServer?.close();
});

test('Chromium: "Continue with Platform SSO" by keyboard, signed in at the other identity service, back as the linked account', async () => {
  const app = await server.registerApp({
    name: 'Notebook',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'email'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url.href);
  assert.equal(await page.title(), 'Sign in');
  const button = page.getByRole('button', { name: 'Continue with Platform SSO' });
  assert.equal(await button.count(), 1);
  assert.equal(
    await page.getByRole('button', { name: /Continue with (GitHub|Google)/ }).count(),
    0,
    'only configured providers are offered',
  );
  await assertAccessible(page, 'sign-in page with a provider button');
  await page.screenshot({ path: '/tmp/market-social-signin.png', fullPage: true });

  // Keyboard only: email, password, "Sign in", "Forgot your password?", then the provider's button.
  assert.equal(await page.evaluate('document.activeElement.id'), 'email');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Continue with Platform SSO');
  await page.keyboard.press('Enter');

  // The upstream identity service's own sign-in page.
  await page.waitForURL(`${upstream.issuer}/interaction/**`);
  assert.equal(await page.title(), 'Sign in');
  await page.getByLabel('Email address').fill(hedy.email);
  await page.getByLabel('Password').fill(hedy.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.waitForURL(`${CALLBACK}**`);
  const callback = arrivals.find((a) => a.startsWith(`${CALLBACK}?`));
  assert.ok(callback, 'the browser came back to the app');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier });
  assert.equal(
    tokens.claims()!.sub,
    hedyHere,
    'the same verified email on both services: linked to the existing account',
  );
  const link = await server.runtime.db.query<{ subject: string; email_verified: boolean }>(
    "SELECT subject, email_verified FROM external_identities WHERE provider = 'platform'",
  );
  assert.equal(link.rows.length, 1);
  assert.equal(link.rows[0]!.email_verified, true);
  const upstreamId = (
    await upstream.runtime.db.query<{ principal_id: string }>('SELECT principal_id FROM humans WHERE email = $1', [
      hedy.email,
    ])
  ).rows[0]!.principal_id;
  assert.equal(link.rows[0]!.subject, upstreamId, "the upstream's subject is its principal id");
  const cookies = await context.cookies(server.issuer);
  assert.ok(
    cookies.some((c) => c.name === '__Host-svc_login'),
    'a login session was started',
  );
  assert.ok(!cookies.some((c) => c.name === '__Host-svc_upstream'), 'the state cookie is cleared');

  // A refusal page (a replayed callback) is accessible too.
  await page.goto(`${server.issuer}/upstream/platform/callback?code=x&state=replayed`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign-in expired');
  await assertAccessible(page, 'refused social sign-in page');
  await context.close();
});

test('in Chromium with a French browser: the provider button and the social sign-in refusals in French, accessible', async () => {
  const app = await server.registerApp({
    name: 'Carnet',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid'],
  });
  const context = await frenchContext(browser);
  const page = await context.newPage();
  await page.goto(
    `${server.issuer}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, response_type: 'code', scope: 'openid', redirect_uri: CALLBACK, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
  );
  await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
  await page.getByRole('heading', { level: 2, name: fr.social.otherAccount }).waitFor();
  await page.getByRole('button', { name: 'Continuer avec Platform SSO' }).waitFor();
  await checkFrenchPage(page, 'French sign-in page with a provider button');

  const replayed = await page.goto(`${server.issuer}/upstream/platform/callback?code=x&state=replayed`);
  assert.match(replayed?.headers().vary ?? '', /accept-language/i);
  await page.getByRole('heading', { level: 1, name: 'Connexion expirée' }).waitFor();
  await page.getByText(fr.social.expired('Platform SSO')).waitFor();
  await checkFrenchPage(page, 'French refused social sign-in page');
  const unknown = await page.goto(`${server.issuer}/upstream/nowhere/callback?code=x&state=y`);
  assert.equal(unknown?.status(), 404);
  await page.getByRole('heading', { level: 1, name: fr.social.notOfferedTitle }).waitFor();
  await checkFrenchPage(page, 'French sign-in method not offered page');
  await context.close();
});
