import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import * as oidc from 'openid-client';
import { findChromium, CHROMIUM_ARGS } from '../../src/kit/browser.ts';
import { createOrganization } from '../../src/identity/organizations/store.ts';
import { createInvite, revokeInvite } from '../../src/identity/invites/store.ts';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { assertAccessible, focused, focusSettles, screenshot } from './a11y.ts';
import { signInAt, signInOnPage } from './account-support.ts';

let server: Server;
let browser: Browser;
let orgId: string;
const grace = { email: 'grace@example.com', password: 'grace has a long password' };
const mallory = { email: 'mallory@example.com', password: 'mallory has a long password' };
let graceId: string;
let inviterId: string;

async function invite(email: string, role = 'analyst') {
  return createInvite(server.runtime.db, {
    organizationId: orgId,
    email,
    role,
    message: 'We would love your help with the engines.',
    ttlSeconds: 3600,
    inviterId,
  });
}
const membership = async (principalId: string) =>
  (
    await server.runtime.db.query<{ role: string; active: boolean }>(
      'SELECT role, active FROM principal_memberships WHERE organization_id = $1 AND principal_id = $2',
      [orgId, principalId],
    )
  ).rows[0];

before(async () => {
  server = await startServer('idaccount');
  inviterId = await server.createHuman('ada@example.com', 'ada has a long password');
  await server.runtime.db.query("UPDATE principals SET display_name = 'Ada Lovelace' WHERE id = $1", [inviterId]);
  graceId = await server.createHuman(grace.email, grace.password);
  await server.createHuman(mallory.email, mallory.password);
  orgId = (await createOrganization(server.runtime.db, { name: 'Analytical Engines', slug: 'engines' })).id;
  browser = await chromium.launch({ executablePath: await findChromium(), args: CHROMIUM_ARGS, headless: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the invitation page in Chromium: shows the organization and role, signs in through the sign-in page, refuses the wrong person, accepts the invited one', async () => {
  const { token } = await invite(grace.email);
  const link = `${server.issuer}/invites/accept?token=${token}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  assert.equal(await page.title(), 'Invitation to Analytical Engines');
  assert.equal(await page.locator('h1').textContent(), 'Join Analytical Engines');
  assert.match(
    (await page.locator('main').textContent())!,
    /Ada Lovelace invites you to join Analytical Engines as analyst/,
  );
  assert.equal(await page.getByRole('button', { name: 'Accept' }).count(), 0, 'no accept before signing in');
  await assertAccessible(page, 'invitation page, signed out');
  await screenshot(page, 'invite-signed-out');

  // Keyboard: the sign-in link, then Decline.
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), `sign in as ${grace.email}`);
  await page.keyboard.press('Enter');
  // The normal sign-in page, with the invited address filled in and the focus on the password.
  await page.waitForURL(/\/interaction\//);
  assert.equal(await page.getByLabel('Email address').inputValue(), grace.email);
  await focusSettles(page, 'password');
  await assertAccessible(page, 'sign-in page for an invitation');
  await screenshot(page, 'signin');

  // Mallory opens Grace's link: signed in, she is told plainly that it is not hers, and accepting is refused.
  await signInOnPage(page, mallory);
  await page.waitForURL(/\/invites\/accept\?token=/);
  const alert = page.getByRole('alert');
  assert.match(
    (await alert.textContent())!,
    /sent to grace@example\.com, and you are signed in as mallory@example\.com/,
  );
  await assertAccessible(page, 'invitation page, wrong person');
  await page.getByRole('button', { name: 'Accept' }).click();
  await page.waitForLoadState();
  assert.match((await page.getByRole('alert').textContent())!, /Sign in as grace@example\.com to accept it/);
  await screenshot(page, 'invite-wrong-person');
  assert.equal(await membership(graceId), undefined, 'no membership was made');
  assert.equal(
    (await server.runtime.db.query('SELECT status FROM invites WHERE email = $1', [grace.email])).rows[0]!.status,
    'pending',
  );

  // "Sign in as someone else", as Grace, then Accept with the keyboard (focus starts on it).
  await page.getByRole('link', { name: 'Sign in as someone else' }).click();
  await signInOnPage(page, grace);
  await page.waitForURL(/\/invites\/accept\?token=/);
  assert.equal(await page.getByRole('alert').count(), 0);
  assert.equal(await focused(page), 'Accept');
  await assertAccessible(page, 'invitation page, invited person');
  await screenshot(page, 'invite-signed-in');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'You joined Analytical Engines' }).waitFor();
  assert.match((await page.getByRole('status').textContent())!, /as analyst/);
  await assertAccessible(page, 'invitation accepted');
  assert.deepEqual(await membership(graceId), { role: 'analyst', active: true });

  await page.goto(link);
  assert.equal(await page.locator('h1').textContent(), 'Invitation already accepted');
  await assertAccessible(page, 'accepted invitation page');
  await context.close();
});

test('declined, revoked, expired and unknown invitations get their own page; declining needs no sign-in', async () => {
  const open = (t: string) =>
    fetch(`${server.issuer}/invites/accept?token=${encodeURIComponent(t)}`).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  const declining = await invite('decliner@example.com');
  const b = new TestBrowser();
  const shown = await (await b.request(`${server.issuer}/invites/accept?token=${declining.token}`)).text();
  const declined = await b.request(`${server.issuer}/invites/accept`, {
    form: { token: declining.token, csrf: field(shown, 'csrf')!, decision: 'decline' },
  });
  assert.equal(declined.status, 200);
  assert.match(await declined.text(), /<h1>Invitation declined<\/h1>/);
  assert.match((await open(declining.token)).text, /<h1>Invitation declined<\/h1>/);
  const again = await b.request(`${server.issuer}/invites/accept`, {
    form: { token: declining.token, csrf: field(shown, 'csrf')!, decision: 'decline' },
  });
  assert.equal(again.status, 409, 'a declined invitation moves nowhere');

  const revoking = await invite('revoked@example.com');
  await revokeInvite(server.runtime.db, orgId, revoking.invite.id);
  assert.match((await open(revoking.token)).text, /<h1>Invitation withdrawn<\/h1>/);

  const expiring = await invite('late@example.com');
  await server.runtime.db.query("UPDATE invites SET expires_at = now() - interval '1 second' WHERE id = $1", [
    expiring.invite.id,
  ]);
  const expired = await open(expiring.token);
  assert.equal(expired.status, 200);
  assert.match(expired.text, /<h1>Invitation expired<\/h1>/);

  const unknown = await open(`inv_${'x'.repeat(43)}`);
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /<h1>Invitation not found<\/h1>/);
  assert.equal((await open('')).status, 404);
  assert.equal((await open('x'.repeat(500))).status, 400, 'an oversized token is a bad request, not a 500');

  const page = await browser.newPage();
  await page.goto(`${server.issuer}/invites/accept?token=${expiring.token}`);
  await assertAccessible(page, 'expired invitation page');
  await page.goto(`${server.issuer}/invites/accept?token=nothing`);
  await assertAccessible(page, 'unknown invitation page');
  await page.close();
});

test('a matching but unverified email cannot accept on the page: the reason is shown and the invitation stays pending', async () => {
  const { createHuman } = await import('../../src/identity/principals/store.ts');
  const who = { email: 'unverified@example.com', password: 'unverified long password' };
  const id = (await createHuman(server.runtime.db, { email: who.email, password: who.password, emailVerified: false }))
    .id;
  const { token } = await invite(who.email);
  const b = new TestBrowser();
  const { url, html: page } = await signInAt(server.issuer, b, `/invites/accept?token=${token}`, who);
  assert.equal(url, `${server.issuer}/invites/accept?token=${token}`, 'the sign-in came back to the invitation');
  assert.match(page, /role="alert"[^>]*>Your email address unverified@example\.com is not verified yet/);
  const refused = await b.request(`${server.issuer}/invites/accept`, {
    form: { token, csrf: field(page, 'csrf')!, decision: 'accept' },
  });
  assert.equal(refused.status, 403);
  assert.match(await refused.text(), /is not verified yet/);
  assert.equal(await membership(id), undefined);
  assert.equal(
    (await server.runtime.db.query('SELECT status FROM invites WHERE email = $1', [who.email])).rows[0]!.status,
    'pending',
  );
});

test('invitation and sign-in forms refuse forged posts and foreign return addresses', async () => {
  const { token } = await invite('forged@example.com');
  const b = new TestBrowser();
  const page = await (await b.request(`${server.issuer}/invites/accept?token=${token}`)).text();
  const csrf = field(page, 'csrf')!;
  assert.equal(
    (await b.request(`${server.issuer}/invites/accept`, { form: { token, csrf: 'forged', decision: 'decline' } }))
      .status,
    403,
  );
  assert.equal(
    (await new TestBrowser().request(`${server.issuer}/invites/accept`, { form: { token, csrf, decision: 'decline' } }))
      .status,
    403,
    'the token belongs to the browser that got the page',
  );
  assert.equal(
    (
      await b.request(`${server.issuer}/invites/accept`, {
        form: { token, csrf, decision: 'decline' },
        headers: { origin: 'https://evil.example' },
      })
    ).status,
    403,
  );
  assert.equal(
    (await b.request(`${server.issuer}/invites/accept`, { form: { token, csrf, decision: 'maybe' } })).status,
    400,
  );
  const anonymousAccept = await b.request(`${server.issuer}/invites/accept`, {
    form: { token, csrf, decision: 'accept' },
  });
  assert.equal(anonymousAccept.status, 303, 'accepting signed out leads to the sign-in page');
  assert.match(anonymousAccept.headers.get('location')!, /^\/signin\?return_to=%2Finvites%2Faccept%3Ftoken%3D/);

  // The sign-in is an authorization request of the built-in account client, coming back to identity's callback.
  const start = await b.request(`${server.issuer}/signin?return_to=%2Faccount%2Fpassword&utm_source=mail`);
  assert.equal(start.status, 303, 'other query parameters are ignored');
  const authorize = new URL(start.headers.get('location')!, server.issuer);
  assert.equal(authorize.pathname, '/oauth/authorize');
  assert.equal(authorize.searchParams.get('client_id'), 'identity-account-pages');
  assert.equal(authorize.searchParams.get('redirect_uri'), `${server.issuer}/account/callback`);
  const huge = await b.request(`${server.issuer}/signin?return_to=${'a'.repeat(2000)}`);
  assert.equal(huge.status, 400, 'an oversized return address is a bad request, not a 500');
  assert.match(await huge.text(), /<h1>Request refused<\/h1>/);
  const wrong = await signInAt(server.issuer, new TestBrowser(), '/account/password', {
    email: grace.email,
    password: 'not it at all',
  });
  assert.equal(wrong.res.status, 401);
  assert.match(wrong.html, /role="alert"[^>]*>The email address or the password is not correct/);
  for (const foreign of ['https://evil.example/steal', '//evil.example', '/oauth/authorize']) {
    const away = new TestBrowser();
    const landed = await signInAt(server.issuer, away, foreign, grace);
    assert.equal(
      landed.url,
      `${server.issuer}/account/password`,
      `${foreign}: a return address other than identity's account and invitation pages is replaced`,
    );
    assert.ok(away.cookie('__Host-svc_login'), 'the login session is the one the authorization pages use');
  }
  // The callback without the browser's own sign-in cookie, or with another state, goes nowhere.
  const stray = await new TestBrowser().request(`${server.issuer}/account/callback?code=abc&state=def`);
  assert.equal(stray.status, 400);
  assert.match(await stray.text(), /<h1>Sign-in expired<\/h1>/);
  const started = new TestBrowser();
  await started.request(`${server.issuer}/signin?return_to=%2Faccount%2Fpassword`);
  assert.equal((await started.request(`${server.issuer}/account/callback?code=abc&state=not-the-state`)).status, 400);
  assert.equal((await started.request(`${server.issuer}/account/callback?state=${'x'.repeat(500)}`)).status, 400);
  const { createApp } = await import('../../src/identity/apps/store.ts');
  await assert.rejects(
    createApp(server.runtime.db, { name: 'Impostor', clientId: 'identity-account-pages' }, server.runtime.scopes),
    /reserved/,
    'no app may take the built-in client id',
  );
  await assert.rejects(
    createApp(
      server.runtime.db,
      { name: 'Impostor', clientId: 'platform-dashboard', redirectUris: ['https://evil.example/cb'] },
      server.runtime.scopes,
    ),
    /reserved/,
    "nor the dashboard's built-in one (platform start)",
  );
});

test('/signin while signed in keeps the session and goes straight on; prompt=login or a hint naming someone else signs in afresh', async () => {
  const who = { email: 'kept@example.com', password: 'kept has a long password' };
  await server.createHuman(who.email, who.password);
  const b = new TestBrowser();
  await signInAt(server.issuer, b, '/account/password', who);
  const token = b.cookie('__Host-svc_login')!;
  const sessions = async () =>
    (
      await server.runtime.db.query(
        'SELECT 1 FROM login_sessions s JOIN humans h ON h.principal_id = s.principal_id WHERE h.email = $1',
        [who.email],
      )
    ).rowCount;
  assert.equal(await sessions(), 1);

  for (const query of [
    'return_to=%2Faccount%2Fapps',
    'return_to=%2Faccount%2Fapps&login_hint=Kept%40Example.com',
    'return_to=https%3A%2F%2Fevil.example%2F',
  ]) {
    const straight = await b.request(`${server.issuer}/signin?${query}`);
    assert.equal(straight.status, 303, query);
    assert.equal(
      straight.headers.get('location'),
      query.includes('evil') ? '/account/password' : '/account/apps',
      `${query}: straight to the page`,
    );
    assert.equal(straight.headers.getSetCookie().length, 0, `${query}: no cookie is cleared`);
  }
  assert.equal(b.cookie('__Host-svc_login'), token);
  assert.equal(await sessions(), 1, 'the session is kept');
  assert.equal((await b.request(`${server.issuer}/account/apps`)).status, 200);

  // The account pages offer "Sign in as someone else", which is prompt=login.
  const nav = await (await b.request(`${server.issuer}/account/apps`)).text();
  assert.match(nav, /<a href="\/signin\?return_to=%2Faccount%2Fapps&amp;prompt=login">Sign in as someone else<\/a>/);
  for (const query of [
    'return_to=%2Faccount%2Fapps&prompt=login',
    'return_to=%2Faccount%2Fapps&login_hint=someone.else%40example.com',
  ]) {
    const again = await b.request(`${server.issuer}/signin?${query}`);
    assert.equal(again.status, 303);
    assert.equal(
      new URL(again.headers.get('location')!, server.issuer).pathname,
      '/oauth/authorize',
      `${query}: to the sign-in`,
    );
    assert.equal(b.cookie('__Host-svc_login'), undefined, `${query}: signed out first`);
    assert.equal(await sessions(), 0);
    await signInAt(server.issuer, b, '/account/password', who);
  }
  const bad = await b.request(`${server.issuer}/signin?return_to=%2Faccount%2Fapps&prompt=none`);
  assert.equal(bad.status, 400, 'prompt takes only login');
  assert.match(await bad.text(), /<h1>Request refused<\/h1>/);
});

test('the change-password page in Chromium: signs in first, checks the fields, changes the password with the slow hash and signs out other browsers', async () => {
  const who = { email: 'pat@example.com', password: 'pat first long password' };
  const id = await server.createHuman(who.email, who.password);
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto(`${server.issuer}/account/password`);
  await signInOnPage(otherPage, who);
  await otherPage.getByRole('heading', { level: 1, name: 'Change your password' }).waitFor();
  assert.equal(otherPage.url(), `${server.issuer}/account/password`);

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.issuer}/account/password`);
  await page.waitForURL(/\/interaction\//);
  await signInOnPage(page, who);
  await page.waitForURL(`${server.issuer}/account/password`);
  assert.equal(await page.title(), 'Change your password');
  assert.equal(await focused(page), 'current_password');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'new_password');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'confirm_password');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Change password');
  await assertAccessible(page, 'change-password page');
  await screenshot(page, 'change-password');

  await page.getByLabel('Current password').fill(who.password);
  await page.getByLabel('New password', { exact: true }).fill('pat second long password');
  await page.getByLabel('Confirm the new password').fill('pat second long passwrod');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The confirmation does not match the new password.');
  assert.equal(await page.getByLabel('Confirm the new password').getAttribute('aria-invalid'), 'true');
  assert.equal(await focused(page), 'confirm_password', 'focus goes to the field to fix');
  await assertAccessible(page, 'change-password page with an error');
  await screenshot(page, 'change-password-error');

  await page.getByLabel('Current password').fill('a wrong current password');
  await page.getByLabel('New password', { exact: true }).fill('pat second long password');
  await page.getByLabel('Confirm the new password').fill('pat second long password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The current password is not correct.');
  assert.equal(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('New password', { exact: true }).fill('short');
  await page.getByLabel('Current password').fill(who.password);
  await page.getByLabel('Confirm the new password').fill('short');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForLoadState();
  assert.equal(await page.getByRole('alert').textContent(), 'The new password must be at least 12 characters.');

  await page.getByLabel('Current password').fill(who.password);
  await page.getByLabel('New password', { exact: true }).fill('pat second long password');
  await page.getByLabel('Confirm the new password').fill('pat second long password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('heading', { level: 1, name: 'Password changed' }).waitFor();
  await assertAccessible(page, 'password changed');

  const creds = await server.runtime.db.query<{ revoked: boolean; revoked_reason: string | null; secret_hash: string }>(
    "SELECT revoked, revoked_reason, secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password' ORDER BY created_at",
    [id],
  );
  assert.deepEqual(
    creds.rows.map((r) => [r.revoked, r.revoked_reason]),
    [
      [true, 'replaced'],
      [false, null],
    ],
  );
  assert.ok(
    creds.rows.every((r) => r.secret_hash.startsWith('scrypt') || r.secret_hash.startsWith('$scrypt')),
    'the same slow hash',
  );

  // This browser stays signed in (with a fresh session); the other one is signed out.
  await page.goto(`${server.issuer}/account/password`);
  assert.equal(await page.title(), 'Change your password');
  await otherPage.goto(`${server.issuer}/account/password`);
  await otherPage.waitForURL(/\/interaction\//);
  await signInOnPage(otherPage, who);
  assert.match(
    (await otherPage.getByRole('alert').textContent())!,
    /not correct/,
    'the old password no longer signs in',
  );
  await signInOnPage(otherPage, { email: who.email, password: 'pat second long password' });
  await otherPage.getByRole('heading', { level: 1, name: 'Change your password' }).waitFor();
  await other.close();
  await context.close();
});

test('PUT /api/v1/account/password: the signed-in person changes their own password with the current one', async () => {
  const who = { email: 'quinn@example.com', password: 'quinn first long password' };
  await server.createHuman(who.email, who.password);
  const app = await server.registerApp({
    name: 'Self service',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid'],
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
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  const accessToken = (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }))
    .access_token;
  const put = (body: unknown, token: string | null = accessToken) =>
    fetch(`${server.issuer}/api/v1/account/password`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: r.status === 204 ? undefined : ((await r.json()) as any) }));

  const anonymous = await put({ current_password: who.password, new_password: 'quinn second long password' }, null);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
  assert.equal(
    (await put({ current_password: who.password, new_password: 'quinn second long password' }, 'not-a-token')).status,
    401,
  );
  const wrong = await put({ current_password: 'not the current one', new_password: 'quinn second long password' });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.body.error.code, 'FORBIDDEN');
  const short = await put({ current_password: who.password, new_password: 'short' });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.code, 'VALIDATION_ERROR');
  assert.equal((await put({ current_password: who.password })).status, 400);
  assert.equal((await put({ current_password: who.password, new_password: 'quinn second long password' })).status, 204);
  assert.equal(
    (await put({ current_password: who.password, new_password: 'quinn third long password' })).status,
    403,
    'the old password is no longer current',
  );
});

test('the account pages link to each other: password, sign-in security, agents, sign out, by keyboard', async () => {
  const who = { email: 'nav@example.com', password: 'nav has a long password' };
  await server.createHuman(who.email, who.password);
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.issuer}/account/password`);
  await signInOnPage(page, who);
  // Once timed out in CI (31 s); say where the browser was instead, so the next occurrence tells why.
  await page.waitForURL(`${server.issuer}/account/password`).catch(async (err) => {
    throw new Error(
      `${err}: the browser is at ${page.url()}, showing "${(
        await page
          .locator('body')
          .innerText()
          .catch(() => '')
      ).slice(0, 500)}"`,
    );
  });
  const nav = page.getByRole('navigation', { name: 'Your account' });
  assert.deepEqual(await nav.getByRole('link').allTextContents(), [
    'Password',
    'Sign-in security',
    'Email address',
    'Linked accounts',
    'Sessions',
    'Connected apps',
    'Agents',
    'Sign in as someone else',
    'Sign out',
  ]);
  assert.equal(await nav.getByRole('link', { name: 'Password' }).getAttribute('aria-current'), 'page');
  // After the form, Tab reaches the links; Enter follows one.
  for (let i = 0; i < 6 && (await focused(page)) !== 'Sign-in security'; i++) await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Sign-in security');
  assert.equal(
    await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'),
    'solid',
    'the focus is visible',
  );
  await Promise.all([page.waitForURL(`${server.issuer}/account/security`), page.keyboard.press('Enter')]);
  await assertAccessible(page, 'security page with the account links');
  assert.equal(
    await page
      .getByRole('navigation', { name: 'Your account' })
      .getByRole('link', { name: 'Sign-in security' })
      .getAttribute('aria-current'),
    'page',
  );
  await Promise.all([
    page.waitForURL(`${server.issuer}/agents`),
    page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Agents' }).click(),
  ]);
  await assertAccessible(page, 'agents page with the account links');
  await Promise.all([
    page.waitForURL(`${server.issuer}/signout`),
    page.getByRole('link', { name: 'Sign out' }).click(),
  ]);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign out');
  assert.equal(
    await page
      .getByRole('navigation', { name: 'Your account' })
      .getByRole('link', { name: 'Sign out' })
      .getAttribute('aria-current'),
    'page',
  );
  await assertAccessible(page, 'sign-out page with the account links');
  await screenshot(page, 'account-nav-signout');
  // Signed out, the page offers the way back in.
  await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Sign out' }).click()]);
  await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
  await Promise.all([
    page.waitForURL(/\/interaction\//),
    page.getByRole('link', { name: 'Sign in to your account' }).click(),
  ]);
  await signInOnPage(page, who);
  await page.waitForURL(`${server.issuer}/account/password`);
});

test('connected apps: the person sees the third-party apps they allowed and withdraws one, which ends its tokens', async () => {
  // The consent page promises "You can withdraw this access later": this page is where.
  const who = { email: 'connected@example.com', password: 'connected has a long password' };
  const whoId = await server.createHuman(who.email, who.password);
  const notes = await server.registerApp({ name: 'Notes <b>Pro</b>', appType: 'web', redirectUris: [CALLBACK] });
  const config = await oidc.discovery(
    new URL(server.issuer),
    notes.clientId,
    notes.secret,
    oidc.ClientSecretBasic(notes.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email',
    state: 'st',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const b = new TestBrowser();
  const { callback, sawConsent } = await authorizeInBrowser(server.issuer, b, url.href, who);
  assert.ok(sawConsent);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: 'st',
  });

  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.issuer}/account/apps`);
  await signInOnPage(page, who);
  await page.waitForURL(`${server.issuer}/account/apps`);
  assert.equal(
    await page.getByRole('heading', { level: 2 }).textContent(),
    'Notes <b>Pro</b>',
    'the name is shown as text',
  );
  assert.match((await page.locator('main').textContent())!, /See your email address/);
  await assertAccessible(page, 'connected apps page');
  await screenshot(page, 'connected-apps');
  const withdraw = page.getByRole('button', { name: 'Withdraw access of Notes <b>Pro</b>' });
  await withdraw.focus();
  await Promise.all([page.waitForURL(`${server.issuer}/account/apps?done=withdrawn`), page.keyboard.press('Enter')]);
  assert.match((await page.getByRole('status').textContent())!, /withdrawn/);
  assert.match((await page.locator('main').textContent())!, /No application has access to your account/);
  await assertAccessible(page, 'connected apps page after withdrawing');

  const consent = await server.runtime.db.query(
    'SELECT revoked, revoked_reason FROM oauth_consents WHERE principal_id = $1',
    [whoId],
  );
  assert.deepEqual(consent.rows, [{ revoked: true, revoked_reason: 'user_initiated' }]);
  const intro = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(intro.active, false, "the app's token no longer works");

  // Forged or cross-site posts change nothing; another person's app cannot be withdrawn through one's own session.
  const forged = await fetch(`${server.issuer}/account/apps/${notes.id}/withdraw`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    body: 'csrf=x',
  });
  assert.equal(forged.status, 401, 'no session, no change');
  const html = await (await b.request(`${server.issuer}/account/apps`)).text();
  const crossSite = await b.request(`${server.issuer}/account/apps/${notes.id}/withdraw`, {
    form: { csrf: field(html, 'csrf') ?? '' },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
});
