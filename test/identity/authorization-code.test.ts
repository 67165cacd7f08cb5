import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

let server: Server;
const alice = { email: 'alice@example.com', password: 'correct horse battery staple' };
let aliceId: string;

before(async () => {
  server = await startServer('idauthcode');
  aliceId = await server.createHuman(alice.email, alice.password);
});
after(async () => server?.close());

async function discover(clientId: string, secret: string | undefined) {
  return oidc.discovery(
    new URL(server.issuer),
    clientId,
    secret,
    secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

async function startAuthorization(config: oidc.Configuration, scope = 'openid email profile offline_access') {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, verifier, state, nonce };
}

test('openid-client: discovery, code + PKCE through the sign-in page, refresh, introspection, revocation', async () => {
  const web = await server.registerApp({
    name: 'First Party Web',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const config = await discover(web.clientId, web.secret);
  assert.equal(config.serverMetadata().issuer, server.issuer);

  const browser = new TestBrowser();
  const auth = await startAuthorization(config);
  const { callback, sawSignIn, sawConsent } = await authorizeInBrowser(server.issuer, browser, auth.url, alice);
  assert.ok(sawSignIn);
  assert.equal(sawConsent, false, 'first-party apps skip consent');

  const login = browser.setCookieHeaders.find((h) => h.startsWith('__Host-svc_login='));
  assert.ok(login, 'the login session cookie is set');
  for (const attr of ['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/'])
    assert.ok(login.includes(attr), `cookie has ${attr}`);
  assert.ok(!/Domain=/i.test(login));
  const { sha256Hex } = await import('../../src/kit/crypto.ts');
  const sessions = await server.runtime.db.query<{ token_hash: string; principal_id: string }>(
    'SELECT token_hash, principal_id FROM login_sessions',
  );
  assert.deepEqual(sessions.rows, [
    { token_hash: sha256Hex(browser.cookie('__Host-svc_login')!), principal_id: aliceId },
  ]);

  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.expires_in, 900);
  assert.ok(tokens.refresh_token, 'a refresh token is issued');
  const claims = tokens.claims()!;
  assert.equal(claims.sub, aliceId);
  assert.equal(claims.nonce, auth.nonce);
  assert.equal(claims.iss, server.issuer);

  const idTokenHeader = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
  assert.equal(idTokenHeader.alg, 'RS256');

  const info = await oidc.fetchUserInfo(config, tokens.access_token, aliceId);
  assert.equal(info.email, alice.email);

  const intro = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(intro.active, true);
  assert.equal(intro.username, alice.email);
  assert.equal(intro.sub, aliceId);
  assert.equal(intro.client_id, web.clientId);
  assert.equal(intro.token_type, 'Bearer');
  assert.ok(Array.isArray(intro.aud));
  // OpenID Connect drops offline_access without prompt=consent; the refresh token above was issued anyway
  // because the app is allowed the refresh_token grant (issueRefreshToken is overridden).
  assert.deepEqual(String(intro.scope).split(' ').sort(), ['email', 'openid', 'profile']);

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  assert.ok(refreshed.access_token && refreshed.access_token !== tokens.access_token);
  assert.ok(refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token, 'refresh tokens rotate');

  const refreshIntro = await oidc.tokenIntrospection(config, refreshed.refresh_token!, {
    token_type_hint: 'refresh_token',
  });
  assert.equal(refreshIntro.active, true);
  assert.equal(refreshIntro.token_type, 'refresh_token');

  await oidc.tokenRevocation(config, refreshed.access_token);
  assert.equal((await oidc.tokenIntrospection(config, refreshed.access_token)).active, false);

  // The same browser, still signed in, goes straight back to the app.
  const again = await startAuthorization(config, 'openid email');
  const second = await authorizeInBrowser(server.issuer, browser, again.url, undefined, 'expect-none');
  assert.equal(second.sawSignIn, false, 'a live login session skips the sign-in page');
  const tokens2 = await oidc.authorizationCodeGrant(config, new URL(second.callback), {
    pkceCodeVerifier: again.verifier,
    expectedState: again.state,
    expectedNonce: again.nonce,
  });
  assert.equal(tokens2.claims()!.sub, aliceId);
});

test('refresh-token reuse revokes the whole family', async () => {
  const web = await server.registerApp({
    name: 'Rotation',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const config = await discover(web.clientId, web.secret);
  const auth = await startAuthorization(config);
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), auth.url, alice);
  const first = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
  const third = await oidc.refreshTokenGrant(config, second.refresh_token!);
  assert.equal((await oidc.tokenIntrospection(config, third.access_token)).active, true);

  const reuse = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'refresh_token', refresh_token: first.refresh_token! },
    { authorization: basic(web.clientId, web.secret!) },
  );
  assert.equal(reuse.status, 400);
  assert.equal(reuse.json.error, 'invalid_grant');

  for (const t of [first.access_token, second.access_token, third.access_token, third.refresh_token!]) {
    assert.equal((await oidc.tokenIntrospection(config, t)).active, false, 'every token of the family is revoked');
  }
  const later = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'refresh_token', refresh_token: third.refresh_token! },
    { authorization: basic(web.clientId, web.secret!) },
  );
  assert.equal(later.json.error, 'invalid_grant');
});

test('a public SPA client uses PKCE with no secret; refresh tokens rotate unless the app says otherwise', async () => {
  const spa = await server.registerApp({
    name: 'SPA',
    appType: 'spa',
    redirectUris: [CALLBACK],
    firstParty: true,
    refreshTokenRotation: false,
  });
  const config = await discover(spa.clientId, undefined);
  const auth = await startAuthorization(config);
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), auth.url, alice);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  assert.equal(
    refreshed.refresh_token ?? tokens.refresh_token,
    tokens.refresh_token,
    'no rotation when the app turns it off',
  );
});

test('a third-party app asks for consent once; revoking the consent revokes its tokens', async () => {
  const third = await server.registerApp({ name: 'Third Party', appType: 'web', redirectUris: [CALLBACK] });
  const config = await discover(third.clientId, third.secret);
  const browser = new TestBrowser();

  const denied = await startAuthorization(config, 'openid email');
  const d = await authorizeInBrowser(server.issuer, browser, denied.url, alice, 'deny');
  assert.ok(d.sawConsent);
  assert.equal(new URL(d.callback).searchParams.get('error'), 'access_denied');

  const auth = await startAuthorization(config, 'openid email');
  const r = await authorizeInBrowser(server.issuer, browser, auth.url, alice, 'allow');
  assert.ok(r.sawConsent, 'consent is asked');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(r.callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  const grants = await server.runtime.db.query<{ scope: string }>(
    'SELECT scope FROM consent_grants WHERE principal_id = $1 AND client_id = $2 ORDER BY scope',
    [aliceId, third.clientId],
  );
  assert.deepEqual(
    grants.rows.map((g) => g.scope),
    ['email', 'openid'],
  );

  const again = await startAuthorization(config, 'openid email');
  const r2 = await authorizeInBrowser(server.issuer, browser, again.url, alice, 'expect-none');
  assert.equal(r2.sawConsent, false, 'recorded consent is not asked again');

  const more = await startAuthorization(config, 'openid email profile');
  const r3 = await authorizeInBrowser(server.issuer, browser, more.url, alice, 'allow');
  assert.ok(r3.sawConsent, 'a new scope needs consent');

  const { revokeConsent } = await import('../../src/identity/consent/store.ts');
  assert.ok(await revokeConsent(server.runtime.db, aliceId, third.id, 'user_initiated'));
  assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, false);
  assert.equal((await oidc.tokenIntrospection(config, tokens.refresh_token!)).active, false);
  const refresh = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
    { authorization: basic(third.clientId, third.secret!) },
  );
  assert.equal(refresh.json.error, 'invalid_grant');

  const after = await startAuthorization(config, 'openid email');
  const r4 = await authorizeInBrowser(server.issuer, browser, after.url, alice, 'allow');
  assert.ok(r4.sawConsent, 'after revocation consent is asked again');
});

test('signing out ends the login session and the provider session', async () => {
  const web = await server.registerApp({
    name: 'Sign-out',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const config = await discover(web.clientId, web.secret);
  const browser = new TestBrowser();
  const auth = await startAuthorization(config);
  await authorizeInBrowser(server.issuer, browser, auth.url, alice);

  const { sha256Hex } = await import('../../src/kit/crypto.ts');
  const loginHash = sha256Hex(browser.cookie('__Host-svc_login')!);
  const pageRes = await browser.request(`${server.issuer}/signout`);
  const html = await pageRes.text();
  assert.match(html, /<h1>Sign out<\/h1>/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const forged = await browser.request(`${server.issuer}/signout`, { form: { csrf: 'forged' } });
  assert.equal(forged.status, 403);
  const out = await browser.request(`${server.issuer}/signout`, { form: { csrf } });
  assert.equal(out.status, 200);
  assert.equal(browser.cookie('__Host-svc_login'), undefined);
  assert.equal(
    (await server.runtime.db.query('SELECT 1 FROM login_sessions WHERE token_hash = $1', [loginHash])).rowCount,
    0,
  );

  const next = await startAuthorization(config);
  const step = await browser.follow(next.url, CALLBACK);
  assert.ok(!step.callback && step.html.includes('<h1>Sign in</h1>'), 'signing in is needed again');
});

test('a consent revoked while its consent page is open: allowing afterwards is refused with a page, not a 500', async () => {
  const third = await server.registerApp({ name: 'Racing Third Party', appType: 'web', redirectUris: [CALLBACK] });
  const config = await discover(third.clientId, third.secret);
  const browser = new TestBrowser();
  const first = await startAuthorization(config, 'openid email');
  await authorizeInBrowser(server.issuer, browser, first.url, alice, 'allow');

  const more = await startAuthorization(config, 'openid email profile');
  const page = await browser.follow(more.url, CALLBACK);
  assert.match(
    page.html,
    /to access your account\?<\/h1>/,
    'a new scope asks for consent on top of the existing grant',
  );
  const { revokeConsent } = await import('../../src/identity/consent/store.ts');
  assert.ok(await revokeConsent(server.runtime.db, aliceId, third.id, 'user_initiated'));

  const { field, formAction } = await import('./browser.ts');
  const answer = await browser.request(new URL(formAction(page.html)!, server.issuer).href, {
    form: { csrf: field(page.html, 'csrf')!, decision: 'allow' },
  });
  assert.equal(answer.status, 400);
  assert.match(await answer.text(), /<h1>Sign-in request expired<\/h1>/);
  const grants = await server.runtime.db.query(
    'SELECT 1 FROM consent_grants WHERE principal_id = $1 AND client_id = $2',
    [aliceId, third.clientId],
  );
  assert.equal(grants.rowCount, 0, 'nothing is recorded for the withdrawn consent');

  const again = await startAuthorization(config, 'openid email profile');
  const r = await authorizeInBrowser(server.issuer, browser, again.url, alice, 'allow');
  assert.ok(r.sawConsent, 'starting again asks for every scope');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(r.callback), {
    pkceCodeVerifier: again.verifier,
    expectedState: again.state,
    expectedNonce: again.nonce,
  });
  assert.deepEqual(String(tokens.scope).split(' ').sort(), ['email', 'openid', 'profile']);
});

test("a public client revokes its own tokens with its client_id alone (RFC 7009 2.1), never another app's", async () => {
  const spa = await server.registerApp({
    name: 'Phone',
    appType: 'native',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const web = await server.registerApp({
    name: 'Desk',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    resourceServer: true,
  });
  const signIn = async (config: oidc.Configuration) => {
    const auth = await startAuthorization(config);
    const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), auth.url, alice);
    return oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: auth.verifier,
      expectedState: auth.state,
      expectedNonce: auth.nonce,
    });
  };
  const webConfig = await discover(web.clientId, web.secret);
  const mine = await signIn(await discover(spa.clientId, undefined));
  const theirs = await signIn(webConfig);

  const notMine = await form(`${server.issuer}/oauth/revoke`, { token: theirs.access_token, client_id: spa.clientId });
  assert.equal(notMine.status, 200);
  assert.equal(
    (await oidc.tokenIntrospection(webConfig, theirs.access_token)).active,
    true,
    "another app's token is left alone",
  );

  const byId = await form(`${server.issuer}/oauth/revoke`, {
    token: mine.refresh_token!,
    token_type_hint: 'refresh_token',
    client_id: spa.clientId,
  });
  assert.equal(byId.status, 200, byId.text);
  assert.equal((await oidc.tokenIntrospection(webConfig, mine.refresh_token!)).active, false);
  const refresh = await form(`${server.issuer}/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: mine.refresh_token!,
    client_id: spa.clientId,
  });
  assert.equal(refresh.json.error, 'invalid_grant');

  const access = await form(`${server.issuer}/oauth/revoke`, { token: mine.access_token, client_id: spa.clientId });
  assert.equal(access.status, 200);
  assert.equal((await oidc.tokenIntrospection(webConfig, mine.access_token)).active, false);

  const introspect = await form(`${server.issuer}/oauth/introspect`, {
    token: theirs.access_token,
    client_id: spa.clientId,
  });
  assert.equal(introspect.status, 401, 'introspection still needs HTTP Basic');
  const unknown = await form(`${server.issuer}/oauth/revoke`, { token: theirs.access_token, client_id: 'no-such-app' });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.error, 'invalid_client');
});

test("a grant is narrowed to the principal's current allowed_scopes at every use: refresh, userinfo, a new authorization", async () => {
  const web = await server.registerApp({
    name: 'Own console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const config = await discover(web.clientId, web.secret);
  const auth = await startAuthorization(config);
  const browser = new TestBrowser();
  const { callback } = await authorizeInBrowser(server.issuer, browser, auth.url, alice);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  assert.ok(String(tokens.scope).split(' ').includes('email'));

  const setScopes = async (scopes: string[]) => {
    await server.runtime.db.query('UPDATE principals SET allowed_scopes = $2 WHERE id = $1', [
      aliceId,
      JSON.stringify(scopes),
    ]);
    server.runtime.accounts.invalidate(aliceId);
  };
  await setScopes(['openid', 'profile', 'offline_access']);
  try {
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.deepEqual(String(refreshed.scope).split(' ').sort(), ['openid', 'profile']);
    const intro = await oidc.tokenIntrospection(config, refreshed.access_token);
    assert.ok(!String(intro.scope).split(' ').includes('email'), 'the new access token lacks the withdrawn scope');
    const info = await oidc.fetchUserInfo(config, refreshed.access_token, aliceId);
    assert.equal(info.email, undefined, 'userinfo no longer tells the email');

    const again = await startAuthorization(config);
    const second = await authorizeInBrowser(server.issuer, browser, again.url, undefined, 'expect-none');
    const reissued = await oidc.authorizationCodeGrant(config, new URL(second.callback), {
      pkceCodeVerifier: again.verifier,
      expectedState: again.state,
      expectedNonce: again.nonce,
    });
    assert.ok(
      !String(reissued.scope).split(' ').includes('email'),
      'a reused first-party grant does not bring the scope back',
    );
  } finally {
    await setScopes(['openid', 'profile', 'email', 'offline_access']);
  }
});

test('POST /oauth/authorize and POST /oauth/logout (form parameters) work like their GET forms', async () => {
  // The contract's "GET and POST /oauth/authorize": the provider offers POST only with SameSite=None cookies, so it answered 404.
  const web = await server.registerApp({
    name: 'Form Poster',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  const config = await discover(web.clientId, web.secret);
  const auth = await startAuthorization(config, 'openid email');
  const params = Object.fromEntries(new URL(auth.url).searchParams);
  const browser = new TestBrowser();
  // A cross-site form post, as an app's page would send it: no cookies go with it.
  const posted = await fetch(`${server.issuer}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.example' },
    body: new URLSearchParams(params),
    redirect: 'manual',
  });
  assert.equal(posted.status, 303);
  const get = new URL(posted.headers.get('location')!, server.issuer);
  assert.equal(get.origin + get.pathname, `${server.issuer}/oauth/authorize`);
  assert.deepEqual(Object.fromEntries(get.searchParams), params);
  const { callback, sawSignIn } = await authorizeInBrowser(server.issuer, browser, get.href, alice);
  assert.ok(sawSignIn);
  assert.equal(new URL(callback).searchParams.get('state'), auth.state);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  assert.ok(tokens.access_token);

  // Checked as a GET would be: a repeated parameter, another content type, an oversized form.
  const twice = await fetch(`${server.issuer}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `client_id=${web.clientId}&client_id=other`,
    redirect: 'manual',
  });
  assert.equal(twice.status, 303);
  const refused = await fetch(new URL(twice.headers.get('location')!, server.issuer), { redirect: 'manual' });
  assert.equal(refused.status, 400);
  assert.equal(refused.headers.get('location'), null);
  const json = await fetch(`${server.issuer}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(json.status, 415);
  assert.equal(((await json.json()) as any).error, 'unsupported_media_type');
  const huge = await fetch(`${server.issuer}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `state=${'a'.repeat(9000)}`,
  });
  assert.equal(huge.status, 413);

  const logout = await browser.request(`${server.issuer}/oauth/logout`, { form: { client_id: web.clientId } });
  assert.equal(logout.status, 303);
  const page = await browser.request(new URL(logout.headers.get('location')!, server.issuer).href);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<form[^>]+action="[^"]*\/oauth\/logout\/confirm"/);
});
