import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { CALLBACK } from './dance.ts';
import { GitHubStandIn, GoogleStandIn, type Person } from '../support/vendors/social-login.ts';
import { resolvePrincipal, SignInRefused } from '../../src/identity/social/link.ts';
import { confirmEnrollment, pendingEnrollment } from '../../src/identity/mfa/totp.ts';
import { freshCode } from './mfa-support.ts';

// Stand-ins speak GitHub's OAuth web flow and REST user API, and Google's OpenID Connect endpoints;
// the identity service under test is real, on its own PostgreSQL database.
let server: Server;
const github = new GitHubStandIn('gh-client', 'gh-secret');
const google = new GoogleStandIn('google-client', 'google-secret');
let app: { clientId: string; secret: string | undefined };
let config: oidc.Configuration;
const adminToken = 'social-admin-token-0123456789';

before(async () => {
  await github.start();
  await google.start();
  server = await startServer('idsocial', {
    IDENTITY_ADMIN_TOKEN: adminToken,
    IDENTITY_GITHUB_CLIENT_ID: github.clientId,
    IDENTITY_GITHUB_CLIENT_SECRET: github.clientSecret,
    IDENTITY_GITHUB_URL: github.url,
    IDENTITY_GITHUB_API_URL: `${github.url}/api`,
    IDENTITY_GOOGLE_CLIENT_ID: google.clientId,
    IDENTITY_GOOGLE_CLIENT_SECRET: google.clientSecret,
    IDENTITY_GOOGLE_ISSUER: google.url,
  });
  app = await server.registerApp({
    name: 'Photos',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'email'],
  });
  config = await oidc.discovery(new URL(server.issuer), app.clientId, app.secret, oidc.ClientSecretBasic(app.secret!), {
    execute: [oidc.allowInsecureRequests],
  });
});
after(async () => {
  await server?.close();
  await github.close();
  await google.close();
});

/** The sign-in page of a new authorization request, and what finishing it needs. */
async function signInPage(browser: TestBrowser) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const step = await browser.follow(url.href, CALLBACK);
  assert.match(step.html, /<h1>Sign in<\/h1>/);
  return { html: step.html, verifier };
}

function upstreamForm(html: string, provider: string) {
  const m = new RegExp(
    `<form method="post" action="(/interaction/[^"]+/upstream/${provider})">\\s*<input type="hidden" name="csrf" value="([^"]+)">`,
  ).exec(html);
  assert.ok(m, `no ${provider} button on the sign-in page`);
  return { action: m[1]!, csrf: m[2]! };
}

/** Clicks "Continue with <provider>" and returns the provider's redirect back to the service (not yet followed). */
async function toCallback(browser: TestBrowser, html: string, provider: string) {
  const form = upstreamForm(html, provider);
  const start = await browser.request(new URL(form.action, server.issuer).href, { form: { csrf: form.csrf } });
  assert.equal(start.status, 303);
  const at = new URL(start.headers.get('location')!);
  assert.equal(at.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(at.searchParams.get('state'));
  const back = await browser.request(at.href);
  assert.equal(back.status, 302, await back.text());
  const callback = back.headers.get('location')!;
  assert.ok(callback.startsWith(`${server.issuer}/upstream/${provider}/callback?`), callback);
  return callback;
}

async function finish(browser: TestBrowser, callback: string, verifier: string) {
  const step = await browser.follow(callback, CALLBACK);
  assert.ok(step.callback, `expected to reach the app; got ${step.res.status}: ${step.html.slice(0, 300)}`);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(step.callback), { pkceCodeVerifier: verifier });
  return tokens.claims()!.sub;
}

async function socialSignIn(provider: 'github' | 'google', person: Person) {
  (provider === 'github' ? github : google).person = person;
  const browser = new TestBrowser();
  const { html, verifier } = await signInPage(browser);
  const callback = await toCallback(browser, html, provider);
  return { browser, callback, verifier, sub: () => finish(browser, callback, verifier) };
}

async function externalIdentities(provider: string, subject: string) {
  return (
    await server.runtime.db.query<{ principal_id: string; email: string; email_verified: boolean }>(
      'SELECT principal_id, email, email_verified FROM external_identities WHERE provider = $1 AND subject = $2',
      [provider, subject],
    )
  ).rows;
}

test('the sign-in page offers only the configured providers, each a form with its CSRF token', async () => {
  const { html } = await signInPage(new TestBrowser());
  assert.match(html, /Continue with GitHub/);
  assert.match(html, /Continue with Google/);
  assert.doesNotMatch(html, /upstream\/platform/);
  // The password form stays the first form of the page.
  assert.match(/<form method="post" action="([^"]+)"/.exec(html)![1]!, /\/login$/);
  assert.notEqual(upstreamForm(html, 'github').csrf, field(html, 'csrf'));
});

test('GitHub: a first sign-in links to the human with the same email verified on both sides; later sign-ins find it by (provider, subject)', async () => {
  const ada = await server.createHuman('ada@example.com', 'ada has a long password');
  const first = await socialSignIn('github', {
    id: 101,
    login: 'ada',
    name: 'Ada',
    email: 'Ada@Example.com',
    verified: true,
  });
  assert.equal(await first.sub(), ada);
  const rows = await externalIdentities('github', '101');
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.principal_id, ada);
  assert.equal(rows[0]!.email_verified, true);
  // GitHub was asked as documented: the code exchange with the PKCE verifier, then /user and /user/emails with the token.
  const exchange = github.requests.find((r) => r.path === '/login/oauth/access_token')!;
  assert.ok(exchange.form!.get('code_verifier'));
  assert.equal(exchange.form!.get('redirect_uri'), `${server.issuer}/upstream/github/callback`);
  assert.ok(github.requests.some((r) => r.path === '/api/user/emails' && /^Bearer gho_/.test(r.authorization ?? '')));
  // The person changed their GitHub email since: the link holds by the account id, not the email.
  const again = await socialSignIn('github', {
    id: 101,
    login: 'ada',
    name: 'Ada',
    email: 'ada@elsewhere.example',
    verified: true,
  });
  assert.equal(await again.sub(), ada);
  assert.equal((await externalIdentities('github', '101'))[0]!.email, 'ada@elsewhere.example');
  // The browser keeps a login session made by GitHub.
  const session = await server.runtime.db.query<{ provider: string }>(
    'SELECT provider FROM login_sessions WHERE principal_id = $1 ORDER BY created_at DESC LIMIT 1',
    [ada],
  );
  assert.equal(session.rows[0]!.provider, 'github');
});

test('a person with a second factor passes it after a social sign-in too: nothing is signed in before the code', async () => {
  const { db, secretKey } = server.runtime;
  const kit = await server.createHuman('kit@example.com', 'kit has a long password');
  const enrolment = await pendingEnrollment(db, secretKey, kit, 'kit@example.com', 'localhost');
  const first = freshCode(enrolment.secret, -1);
  assert.ok((await confirmEnrollment(db, secretKey, kit, enrolment.credentialId, first.code)).ok);

  const attempt = await socialSignIn('github', {
    id: 1909,
    login: 'kit',
    name: 'Kit',
    email: 'kit@example.com',
    verified: true,
  });
  const step = await attempt.browser.follow(attempt.callback, CALLBACK);
  assert.equal(step.callback, undefined, 'GitHub alone must not reach the app');
  assert.equal(step.res.status, 200);
  assert.match(step.html, /<h1>Two-step verification<\/h1>/);
  assert.equal(attempt.browser.cookie('__Host-svc_login'), undefined, 'no login session before the second step');
  assert.equal((await db.query('SELECT 1 FROM login_sessions WHERE principal_id = $1', [kit])).rowCount, 0);

  const action = new URL(/action="([^"]+\/mfa)"/.exec(step.html)![1]!, server.issuer).href;
  const wrong = await attempt.browser.request(action, { form: { csrf: field(step.html, 'csrf')!, code: first.code } });
  assert.equal(wrong.status, 401, 'the enrolment code was used already');
  assert.equal(attempt.browser.cookie('__Host-svc_login'), undefined);

  const code = freshCode(enrolment.secret, first.step);
  const done = await attempt.browser.follow(action, CALLBACK, {
    form: { csrf: field(step.html, 'csrf')!, code: code.code },
  });
  assert.ok(done.callback, `expected to reach the app; got ${done.res.status}: ${done.html.slice(0, 300)}`);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(done.callback), {
    pkceCodeVerifier: attempt.verifier,
  });
  assert.equal(tokens.claims()!.sub, kit);
  const session = await db.query<{ provider: string }>('SELECT provider FROM login_sessions WHERE principal_id = $1', [
    kit,
  ]);
  assert.deepEqual(
    session.rows.map((r) => r.provider),
    ['github'],
  );
  assert.equal((await db.query('SELECT 1 FROM mfa_pending')).rowCount, 0);
});

test('an email the provider has not verified is never linked to an existing account', async () => {
  await server.createHuman('grace@example.com', 'grace has a long password');
  const attempt = await socialSignIn('github', {
    id: 202,
    login: 'mallory',
    name: 'Mallory',
    email: 'grace@example.com',
    verified: false,
  });
  const page = await attempt.browser.follow(attempt.callback, CALLBACK);
  assert.equal(page.callback, undefined);
  assert.equal(page.res.status, 400);
  // GitHub's /user/emails marks the address unverified, so it is not taken as the person's email at all.
  assert.match(page.html, /email address/);
  assert.equal((await externalIdentities('github', '202')).length, 0);
  assert.equal(
    (await server.runtime.db.query("SELECT count(*)::int AS n FROM humans WHERE email = 'grace@example.com'")).rows[0]
      .n,
    1,
  );
});

test('an email the platform has not verified is never linked either, even when Google verified it', async () => {
  const { createHuman } = await import('../../src/identity/principals/store.ts');
  const unverified = await createHuman(server.runtime.db, {
    email: 'linus@example.com',
    password: 'linus has a long password',
    emailVerified: false,
  });
  const attempt = await socialSignIn('google', {
    id: 303,
    login: 'linus',
    name: 'Linus',
    email: 'linus@example.com',
    verified: true,
  });
  const page = await attempt.browser.follow(attempt.callback, CALLBACK);
  assert.equal(page.res.status, 400);
  assert.match(page.html, /the platform has not verified it/);
  assert.equal((await externalIdentities('google', '303')).length, 0);
  assert.equal(
    (await server.runtime.db.query('SELECT 1 FROM login_sessions WHERE principal_id = $1', [unverified.id])).rows
      .length,
    0,
  );
});

test('Google: a new person gets a new human, their email verified as Google says', async () => {
  const attempt = await socialSignIn('google', {
    id: 404,
    login: 'joan',
    name: 'Joan Clarke',
    email: 'joan@example.com',
    verified: true,
  });
  const sub = await attempt.sub();
  const human = await server.runtime.db.query<{
    email: string;
    email_verified_at: string | null;
    display_name: string;
  }>(
    'SELECT h.email, h.email_verified_at, p.display_name FROM humans h JOIN principals p ON p.id = h.principal_id WHERE h.principal_id = $1',
    [sub],
  );
  assert.equal(human.rows[0]!.email, 'joan@example.com');
  assert.ok(human.rows[0]!.email_verified_at);
  assert.equal(human.rows[0]!.display_name, 'Joan Clarke');
  assert.equal((await externalIdentities('google', '404'))[0]!.principal_id, sub);
  // Google got the nonce and PKCE challenge, and the code came back with the verifier and our redirect URI.
  const auth = google.requests.filter((r) => r.path === '/o/oauth2/v2/auth').at(-1)!;
  assert.ok(auth.query.get('nonce'));
  assert.equal(auth.query.get('redirect_uri'), `${server.issuer}/upstream/google/callback`);
});

test('an ID token whose nonce is not the one sent is refused', async () => {
  google.wrongNonce = true;
  try {
    const attempt = await socialSignIn('google', {
      id: 505,
      login: 'eve',
      name: 'Eve',
      email: 'eve@example.com',
      verified: true,
    });
    const page = await attempt.browser.follow(attempt.callback, CALLBACK);
    assert.equal(page.callback, undefined);
    assert.equal(page.res.status, 400);
    assert.match(page.html, /did not confirm the sign-in/);
    assert.equal((await externalIdentities('google', '505')).length, 0);
    assert.equal(
      (await server.runtime.db.query("SELECT 1 FROM humans WHERE email = 'eve@example.com'")).rows.length,
      0,
    );
  } finally {
    google.wrongNonce = false;
  }
});

test('a state is used once: a replayed callback, one from another browser, an expired one and an unknown one are refused', async () => {
  const person = { id: 606, login: 'ken', name: 'Ken', email: 'ken@example.com', verified: true };
  const done = await socialSignIn('github', person);
  await done.sub();
  // The same callback URL again, in the same browser (its state cookie is gone, and so is the row).
  const replay = await done.browser.follow(done.callback, CALLBACK);
  assert.equal(replay.res.status, 400);
  assert.match(replay.html, /already used|unknown/);
  // A fresh callback carried to another browser (login CSRF): refused, and the state is not spent by it.
  const stolen = await socialSignIn('github', person);
  const elsewhere = await new TestBrowser().follow(stolen.callback, CALLBACK);
  assert.equal(elsewhere.res.status, 400);
  // A callback with the right cookie but a state row past its expiry.
  const late = await socialSignIn('github', person);
  await server.runtime.db.query("UPDATE login_states SET expires_at = now() - interval '1 second'");
  const expired = await late.browser.follow(late.callback, CALLBACK);
  assert.equal(expired.res.status, 400);
  const left = (await server.runtime.db.query<{ state_hash: string }>('SELECT state_hash FROM login_states')).rows.map(
    (r) => r.state_hash,
  );
  const { sha256Hex } = await import('../../src/kit/crypto.ts');
  assert.deepEqual(
    left,
    [sha256Hex(new URL(stolen.callback).searchParams.get('state')!)],
    'used and expired states are gone; the one shown to another browser is not spent by it',
  );
  await server.runtime.db.query('DELETE FROM login_states');
  // A made-up state, a missing one, and an unknown provider.
  for (const path of [
    '/upstream/github/callback?code=x&state=made-up',
    '/upstream/github/callback?code=x',
    '/upstream/myspace/callback?code=x&state=y',
  ]) {
    const r = await fetch(`${server.issuer}${path}`);
    assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
  }
});

test('the start of a social sign-in needs the sign-in page: its CSRF token, its origin, a live request, a configured provider', async () => {
  const browser = new TestBrowser();
  const { html } = await signInPage(browser);
  const form = upstreamForm(html, 'github');
  const url = new URL(form.action, server.issuer).href;
  assert.equal((await browser.request(url, { form: { csrf: 'forged' } })).status, 403);
  assert.equal(
    (await browser.request(url, { form: { csrf: form.csrf }, headers: { origin: 'https://evil.example' } })).status,
    403,
  );
  assert.equal((await browser.request(url.replace('/github', '/myspace'), { form: { csrf: form.csrf } })).status, 404);
  assert.equal(
    (await new TestBrowser().request(url, { form: { csrf: form.csrf } })).status,
    400,
    'another browser has no such interaction',
  );
  const stored = await server.runtime.db.query('SELECT count(*)::int AS n FROM login_states');
  assert.equal(stored.rows[0]!.n, 0, 'no LoginState was made by a refused start');
});

test('the LoginState holds only the state hash, and the verifier and nonce sealed', async () => {
  const browser = new TestBrowser();
  const { html } = await signInPage(browser);
  const form = upstreamForm(html, 'google');
  const start = await browser.request(new URL(form.action, server.issuer).href, { form: { csrf: form.csrf } });
  const at = new URL(start.headers.get('location')!);
  const state = at.searchParams.get('state')!;
  const nonce = at.searchParams.get('nonce')!;
  const rows = (await server.runtime.db.query<Record<string, string>>('SELECT * FROM login_states')).rows;
  assert.equal(rows.length, 1);
  const dump = JSON.stringify(rows);
  assert.ok(!dump.includes(state) && !dump.includes(nonce), 'neither the state nor the nonce is stored in clear');
  assert.match(rows[0]!.nonce!, /^v1\./);
  assert.match(rows[0]!.pkce_verifier!, /^v1\./);
  assert.equal(rows[0]!.redirect_url, new URL(form.action, server.issuer).pathname.replace(/\/upstream\/google$/, ''));
  await server.runtime.db.query('DELETE FROM login_states');
});

test('with IDENTITY_SOCIAL_SIGNUP=refuse nobody new gets an account, linking still works', async () => {
  await assert.rejects(
    resolvePrincipal(
      server.runtime.db,
      'github',
      { subject: '707', email: 'newcomer@example.com', emailVerified: true, name: 'New' },
      'refuse',
    ),
    SignInRefused,
  );
  assert.equal((await externalIdentities('github', '707')).length, 0);
  const barbara = await server.createHuman('barbara@example.com', 'barbara has a long password');
  const linked = await resolvePrincipal(
    server.runtime.db,
    'github',
    { subject: '708', email: 'barbara@example.com', emailVerified: true, name: 'B' },
    'refuse',
  );
  assert.deepEqual(linked, { principalId: barbara, how: 'linked' });
  // Two first sign-ins of one upstream account at once end on one principal.
  const both = await Promise.all(
    [1, 2].map(() =>
      resolvePrincipal(
        server.runtime.db,
        'google',
        { subject: '709', email: 'twice@example.com', emailVerified: true, name: 'T' },
        'create',
      ),
    ),
  );
  assert.equal(both[0]!.principalId, both[1]!.principalId);
  assert.equal(
    (await server.runtime.db.query("SELECT 1 FROM humans WHERE email = 'twice@example.com'")).rows.length,
    1,
  );
});

test("management API: a principal's linked accounts are listed and can be unlinked", async () => {
  const alan = await server.createHuman('alan@example.com', 'alan has a long password');
  const first = await socialSignIn('github', {
    id: 808,
    login: 'alan',
    name: 'Alan',
    email: 'alan@example.com',
    verified: true,
  });
  assert.equal(await first.sub(), alan);
  const api = (path: string, method = 'GET') =>
    fetch(`${server.issuer}/api/v1${path}`, { method, headers: { authorization: `Bearer ${adminToken}` } });
  const list = (await (await api(`/principals/${alan}/external-identities`)).json()) as any;
  assert.equal(list.items.length, 1);
  assert.equal(list.items[0].provider, 'github');
  assert.equal(list.items[0].subject, '808');
  assert.equal(list.next, null);
  assert.equal((await api(`/principals/${alan}/external-identities/${list.items[0].id}`, 'DELETE')).status, 204);
  assert.equal((await api(`/principals/${alan}/external-identities/${list.items[0].id}`, 'DELETE')).status, 404);
  assert.equal(((await (await api(`/principals/${alan}/external-identities`)).json()) as any).items.length, 0);
  assert.equal((await api('/principals/00000000-0000-4000-8000-000000000000/external-identities')).status, 404);
  assert.equal((await fetch(`${server.issuer}/api/v1/principals/${alan}/external-identities`)).status, 401);
  // Unlinked, the next sign-in is a first one again: it links again by the verified email.
  const again = await socialSignIn('github', {
    id: 808,
    login: 'alan',
    name: 'Alan',
    email: 'alan@example.com',
    verified: true,
  });
  assert.equal(await again.sub(), alan);
});

test('the person cancelling at the provider, or a deactivated account, ends on a page with the reason', async () => {
  const browser = new TestBrowser();
  const { html } = await signInPage(browser);
  const form = upstreamForm(html, 'github');
  const start = await browser.request(new URL(form.action, server.issuer).href, { form: { csrf: form.csrf } });
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  // GitHub sends the person back with error=access_denied when they refuse to authorize the app.
  const cancelled = await browser.follow(
    `${server.issuer}/upstream/github/callback?error=access_denied&error_description=The+user+has+denied&state=${state}`,
    CALLBACK,
  );
  assert.equal(cancelled.res.status, 400);
  assert.match(cancelled.html, /GitHub sign-in cancelled/);
  assert.match(cancelled.html, /href="\/interaction\/[^"]+">Back to the sign-in page/);

  const rita = await server.createHuman('rita@example.com', 'rita has a long password');
  const first = await socialSignIn('github', {
    id: 909,
    login: 'rita',
    name: 'Rita',
    email: 'rita@example.com',
    verified: true,
  });
  assert.equal(await first.sub(), rita);
  const off = await fetch(`${server.issuer}/api/v1/principals/${rita}/deactivate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
  });
  assert.equal(off.status, 200, await off.text());
  const refused = await socialSignIn('github', {
    id: 909,
    login: 'rita',
    name: 'Rita',
    email: 'rita@example.com',
    verified: true,
  });
  const page = await refused.browser.follow(refused.callback, CALLBACK);
  assert.equal(page.callback, undefined);
  assert.equal(page.res.status, 403);
  assert.match(page.html, /deactivated/);
});
