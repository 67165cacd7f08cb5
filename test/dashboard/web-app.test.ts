import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../src/kit/browser.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/web/routes.ts';
import { startServer, type Server } from '../identity/support.ts';
import { freePort, startDashboard, type DashboardServer } from './harness.ts';
import { assertAccessible, screenshot } from './web/browser.ts';

const PASSWORD = 'correct horse battery staple';

describe('the dashboard web app: serving, first run, sign-in', () => {
  let idp: Server;
  let s: DashboardServer;
  let browser: Browser;
  const consoleErrors: string[] = [];

  before(async () => {
    const port = await freePort();
    idp = await startServer('webidp');
    const client = await idp.registerApp({
      name: 'Dashboards',
      appType: 'web',
      redirectUris: [`http://localhost:${port}/api/v1/auth/platform/callback`],
      allowedScopes: ['openid', 'email', 'profile'],
      firstParty: true,
    });
    await idp.createHuman('olga@acme.example', PASSWORD);
    s = await startDashboard('dashweb', {
      DASHBOARD_PORT: String(port),
      DASHBOARD_OIDC_PROVIDERS: JSON.stringify([
        { id: 'platform', issuer: idp.issuer, clientId: client.clientId, clientSecret: client.secret },
      ]),
    });
    browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await idp?.close();
  });

  const newPage = async (): Promise<Page> => {
    const page = await (await browser.newContext()).newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    return page;
  };

  test('serves the built app: index revalidated, hashed assets immutable, strict CSP, SPA fallback never for /api', async () => {
    const index = await fetch(`${s.url}/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.equal(index.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/);
    const html = await index.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${s.url}${asset}`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(js.headers.get('content-type')!, /^text\/javascript/);

    // The tab's icon is the app's own file (a browser without one asks for /favicon.ico and logs a 404).
    const icon = /<link rel="icon" href="([^"]+)"/.exec(html)?.[1];
    assert.ok(icon, 'index.html names an icon');
    const iconAnswer = await fetch(`${s.url}${icon}`);
    assert.equal(iconAnswer.status, 200);
    assert.equal(iconAnswer.headers.get('content-type'), 'image/svg+xml');

    const deep = await fetch(`${s.url}/dashboards/12?x=1`);
    assert.equal(deep.status, 200);
    assert.equal(await deep.text(), html, 'an app route answers index.html');
    for (const path of ['/api/v1/nothing-here', '/api', '/assets/gone-1234.js', '/favicon-missing.png']) {
      const r = await fetch(`${s.url}${path}`);
      assert.equal(r.status, 404, path);
      assert.equal(((await r.json()) as any).error.code, 'NOT_FOUND', path);
    }
    const malformed = await fetch(`${s.url}/%E0%A4%A`);
    assert.equal(malformed.status, 400, 'a malformed path is a client error, not the app and not a 500');
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
    assert.equal((await fetch(`${s.url}/index.html`)).headers.get('cache-control'), 'no-cache');
  });

  test("first run: the first visitor creates the owner, once; then the owner signs in through identity's pages and out again", async () => {
    const page = await newPage();
    await page.goto(s.url);
    await page.getByRole('heading', { level: 1, name: 'Welcome: create the first owner' }).waitFor();
    assert.equal(await page.title(), 'Set up · Platform console');
    await assertAccessible(page, 'first-run screen');
    await screenshot(page, '01-first-run');

    await page.getByLabel('Organisation name').fill('Acme Analytics');
    assert.equal(await page.getByLabel('Organisation short name').inputValue(), 'acme-analytics');
    await page.getByLabel('Your name').fill('Olga');
    await page.getByLabel('Your email').fill('olga@acme.example');
    await page.getByRole('button', { name: 'Create owner' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(
      await page.getByRole('status').textContent(),
      'olga@acme.example is now the owner of Acme Analytics. Sign in to continue.',
    );
    await assertAccessible(page, 'sign-in screen');
    await screenshot(page, '02-sign-in');

    // Once only: the route refuses, and a fresh visitor is sent to sign-in instead.
    assert.deepEqual((await s.request('GET', '/api/v1/setup')).body, { setupRequired: false, platformAccount: false });
    const again = await s.request('POST', '/api/v1/setup', {
      body: { tenantName: 'Evil', tenantSlug: 'evil', email: 'eve@evil.example', name: 'Eve' },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    assert.equal((await s.cli(['tenants', 'list'])).out.length, 1);

    await page.getByRole('link', { name: 'Sign in with the platform account' }).click();
    await page.getByLabel('Email address').fill('olga@acme.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    const welcome = page.getByRole('heading', { level: 1, name: 'Welcome, Olga' });
    await Promise.race([allow.waitFor(), welcome.waitFor()]);
    if (await allow.isVisible()) await allow.click();
    await welcome.waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the tokens are taken out of the address');
    assert.match((await page.locator('main').textContent()) ?? '', /olga@acme\.example with the role owner/);
    assert.match((await page.locator('.who').textContent()) ?? '', /Olga \(owner\)/);
    await assertAccessible(page, 'home screen');
    // A new tenant's home leads from a data source to a first dashboard, each step a link for a role that may take it.
    const start = page.getByRole('region', { name: 'Get started' });
    await start.waitFor();
    assert.deepEqual(await start.getByRole('link').allTextContents(), [
      'Add a data source',
      'Try a query in the SQL editor',
      'Create a dashboard',
    ]);
    await screenshot(page, '03-home');
    const session = await page.evaluate(
      () => JSON.parse(localStorage.getItem('dashboard.session')!).accessToken as string,
    );
    const created = await s.request('POST', '/api/v1/dashboards', {
      headers: { authorization: `Bearer ${session}` },
      body: {
        slug: 'first',
        title: 'First board',
        definition: { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] },
      },
    });
    assert.equal(created.status, 201);

    // A reload keeps the session (localStorage); signing out ends it on the server too.
    await page.reload();
    await welcome.waitFor();
    // Once a dashboard exists, home lists the ones changed last instead.
    const recent = page.getByRole('region', { name: 'Recently changed dashboards' });
    await recent.getByRole('link', { name: 'First board' }).waitFor();
    assert.equal(
      await recent.getByRole('link', { name: 'First board' }).getAttribute('href'),
      `/dashboards/${created.body.id}`,
    );
    assert.equal(await start.count(), 0);
    await assertAccessible(page, 'home screen with dashboards');
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem('dashboard.session')!).accessToken as string,
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await page.getByRole('status').textContent(), 'You are signed out.');
    assert.equal(
      (await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${token}` } })).status,
      401,
    );
    assert.deepEqual(
      consoleErrors.filter((e) => !/401|Failed to load resource/.test(e)),
      [],
      'no CSP violation or script error',
    );
  });

  test('first-run input is checked: bad slug, bad email, unknown fields are 400', async () => {
    for (const body of [
      { tenantName: 'A', tenantSlug: 'Not A Slug', email: 'a@b.example', name: 'A' },
      { tenantName: 'A', tenantSlug: 'a', email: 'no-at-sign', name: 'A' },
      { tenantName: 'A', tenantSlug: 'a', email: 'a@b.example', name: 'A', role: 'owner' },
      { tenantName: '', tenantSlug: 'a', email: 'a@b.example', name: 'A' },
      // Started alone, the dashboard has no identity account to give the owner: a password is refused, not dropped.
      {
        tenantName: 'A',
        tenantSlug: 'a',
        email: 'a@b.example',
        name: 'A',
        password: 'a long enough passphrase',
        passwordConfirmation: 'a long enough passphrase',
      },
    ]) {
      const r = await s.request('POST', '/api/v1/setup', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
  });
});
