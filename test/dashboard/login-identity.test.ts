import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHuman } from '../../src/identity/principals/store.ts';
import { startServer, type Server } from '../identity/support.ts';
import { TestBrowser, field, formAction } from '../identity/browser.ts';
import { freePort, startDashboard, type DashboardServer } from './harness.ts';

const ALLOWED = 'http://app.example.test/';

describe("signing in through the platform's identity service (OpenID Connect)", () => {
  let idp: Server;
  let s: DashboardServer;
  let callback: string;
  before(async () => {
    const port = await freePort();
    callback = `http://localhost:${port}/api/v1/auth/platform/callback`;
    idp = await startServer('dashidp');
    const client = await idp.registerApp({
      name: 'Dashboards',
      appType: 'web',
      redirectUris: [callback],
      allowedScopes: ['openid', 'email', 'profile'],
      firstParty: true,
    });
    await idp.createHuman('ann@acme.example', 'correct horse battery staple');
    await idp.createHuman('stranger@else.example', 'correct horse battery staple');
    s = await startDashboard('dashlogin', {
      DASHBOARD_PORT: String(port),
      DASHBOARD_OIDC_PROVIDERS: JSON.stringify([
        { id: 'platform', issuer: idp.issuer, clientId: client.clientId, clientSecret: client.secret },
      ]),
      DASHBOARD_REDIRECT_ALLOWLIST: ALLOWED,
    });
    await s.createTenant('acme');
    const made = await s.cli([
      'users',
      'create',
      '--tenant',
      'acme',
      '--email',
      'Ann@acme.example',
      '--name',
      'Ann',
      '--role',
      'editor',
    ]);
    assert.equal(made.code, 0);
  });
  after(async () => {
    await s?.close();
    await idp?.close();
  });

  /** Plays the person: starts at the dashboard, signs in on identity's page, allows, and stops at the dashboard's callback. */
  async function signIn(
    browser: TestBrowser,
    email: string,
    query = '',
  ): Promise<{ start: Response; callbackUrl: string }> {
    const start = await browser.request(`${s.url}/api/v1/auth/platform${query}`);
    assert.equal(start.status, 302, await start.clone().text());
    let step = await browser.follow(start.headers.get('location')!, callback);
    if (!step.callback && step.html.includes('<h1>Sign in</h1>')) {
      step = await browser.follow(new URL(formAction(step.html)!, idp.issuer).href, callback, {
        form: { csrf: field(step.html, 'csrf')!, email, password: 'correct horse battery staple' },
      });
    }
    if (!step.callback && step.html.includes('to access your account?</h1>')) {
      step = await browser.follow(new URL(formAction(step.html)!, idp.issuer).href, callback, {
        form: { csrf: field(step.html, 'csrf')!, decision: 'allow' },
      });
    }
    assert.ok(step.callback, `did not reach the callback: ${step.url} ${step.html.slice(0, 300)}`);
    return { start, callbackUrl: step.callback };
  }

  test('an admin-created user signs in (matched on the verified email) and gets a working token pair', async () => {
    const browser = new TestBrowser();
    const { start, callbackUrl } = await signIn(browser, 'ann@acme.example');
    const cookie = start.headers.getSetCookie().find((c) => c.startsWith('__Host-dashboard_login='))!;
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Max-Age=600/);
    const location = new URL(start.headers.get('location')!);
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(location.searchParams.get('code_challenge'));
    assert.ok(location.searchParams.get('nonce'));
    assert.equal(location.searchParams.get('redirect_uri'), callback);

    const done = await browser.request(callbackUrl);
    assert.equal(done.status, 200);
    assert.match(done.headers.getSetCookie().join(), /__Host-dashboard_login=;.*Max-Age=0/);
    const pair = (await done.json()) as any;
    assert.equal(pair.tokenType, 'Bearer');
    assert.equal(pair.expiresIn, 900);
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } });
    assert.equal(me.status, 200);
    assert.equal(me.body.email, 'Ann@acme.example');
    assert.equal(me.body.role, 'editor');
    assert.ok(me.body.lastLoginAt);
    // Identity's account has no display name (identity shows the email): the name the admin gave stays.
    assert.equal(me.body.name, 'Ann');

    // The state is single-use: the same callback again is refused, with or without the cookie.
    const again = await browser.request(callbackUrl);
    assert.equal(again.status, 400);
    const replay = await fetch(callbackUrl, {
      headers: { cookie: `__Host-dashboard_login=${new URL(callbackUrl).searchParams.get('state')}` },
      redirect: 'manual',
    });
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as any).error.code, 'VALIDATION_ERROR');
  });

  test("the name identity has for the person replaces the user's at sign-in", async () => {
    await createHuman(idp.runtime.db, {
      email: 'bea@acme.example',
      password: 'correct horse battery staple',
      displayName: 'Bea Baker',
      emailVerified: true,
    });
    assert.equal(
      (
        await s.cli([
          'users',
          'create',
          '--tenant',
          'acme',
          '--email',
          'bea@acme.example',
          '--name',
          'B',
          '--role',
          'viewer',
        ])
      ).code,
      0,
    );
    const browser = new TestBrowser();
    const { callbackUrl } = await signIn(browser, 'bea@acme.example');
    const done = await browser.request(callbackUrl);
    assert.equal(done.status, 200);
    const pair = (await done.json()) as any;
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } });
    assert.equal(me.body.name, 'Bea Baker');
    assert.equal(me.body.email, 'bea@acme.example');
  });

  test('a person with no user here is refused 403, and no user is made', async () => {
    const browser = new TestBrowser();
    const { callbackUrl } = await signIn(browser, 'stranger@else.example');
    const done = await browser.request(callbackUrl);
    assert.equal(done.status, 403);
    assert.equal(((await done.json()) as any).error.code, 'FORBIDDEN');
    const rows = await s.cli(['tenants', 'list']);
    assert.equal(rows.out.length, 1);
  });

  test('an allowed redirect receives the pair in the fragment; other redirects are refused before leaving', async () => {
    const browser = new TestBrowser();
    const { callbackUrl } = await signIn(
      browser,
      'ann@acme.example',
      `?redirect=${encodeURIComponent(`${ALLOWED}after?x=1`)}&tenant=acme`,
    );
    const done = await browser.request(callbackUrl);
    assert.equal(done.status, 302);
    const to = new URL(done.headers.get('location')!);
    assert.equal(`${to.origin}${to.pathname}${to.search}`, `${ALLOWED}after?x=1`);
    const fragment = new URLSearchParams(to.hash.slice(1));
    assert.equal(fragment.get('tokenType'), 'Bearer');
    assert.equal(
      (
        await s.request('GET', '/api/v1/auth/me', {
          headers: { authorization: `Bearer ${fragment.get('accessToken')}` },
        })
      ).status,
      200,
    );

    for (const bad of [
      'https://evil.test/',
      'http://app.example.test.evil.test/',
      'http://app.example.test@evil.test/',
      'javascript:alert(1)',
      '//evil.test/',
      '/relative',
      'http://app.example.test:8080/',
    ]) {
      const r = await fetch(`${s.url}/api/v1/auth/platform?redirect=${encodeURIComponent(bad)}`, {
        redirect: 'manual',
      });
      assert.equal(r.status, 400, bad);
      assert.equal(r.headers.getSetCookie().length, 0);
    }
  });

  test('a callback without the cookie, with another state, or for an unknown provider is refused', async () => {
    const browser = new TestBrowser();
    const { callbackUrl } = await signIn(browser, 'ann@acme.example');
    const noCookie = await fetch(callbackUrl, { redirect: 'manual' });
    assert.equal(noCookie.status, 400);
    const wrong = await fetch(callbackUrl, {
      headers: { cookie: '__Host-dashboard_login=somethingelse' },
      redirect: 'manual',
    });
    assert.equal(wrong.status, 400);
    // The login is still usable by the browser that started it.
    assert.equal((await browser.request(callbackUrl)).status, 200);
    assert.equal((await fetch(`${s.url}/api/v1/auth/nowhere`, { redirect: 'manual' })).status, 404);
    assert.equal((await fetch(`${s.url}/api/v1/auth/github`, { redirect: 'manual' })).status, 404);
    const denied = await browser.request(`${s.url}/api/v1/auth/platform`);
    const state = new URL(denied.headers.get('location')!).searchParams.get('state')!;
    const refused = await browser.request(`${s.url}/api/v1/auth/platform/callback?error=access_denied&state=${state}`);
    assert.equal(refused.status, 401);
    assert.equal(
      (await s.request('GET', `/api/v1/auth/platform?tenant=${encodeURIComponent('Not A Slug')}`)).status,
      400,
    );
  });
});
