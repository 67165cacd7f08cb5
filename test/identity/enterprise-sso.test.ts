import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

// Enterprise SSO per organization, with the customer's IdP a second instance of the platform's identity service (on
// 127.0.0.1, let through the outbound guard by IDENTITY_WEBHOOK_ALLOW_HOSTS; an address elsewhere inside is refused).
// Each service gets its own TestBrowser: the two set cookies of the same names.
let upstream: Server;
let server: Server;
const adminToken = 'enterprise-sso-admin-token-0123456789';
let orgId: string;
let otherOrgId: string;
let upstreamClient: { clientId: string; secret: string | undefined };
let config: oidc.Configuration;
const pw = 'a long enough password here';

function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${init.token ?? adminToken}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

before(async () => {
  upstream = await startServer('idssoup', {}, { host: '127.0.0.1' });
  server = await startServer('idsso', {
    IDENTITY_ADMIN_TOKEN: adminToken,
    IDENTITY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  });
  const org = await api('/organizations', { body: { name: 'Acme', slug: 'acme', org_type: 'enterprise' } });
  assert.equal(org.status, 201, await org.clone().text());
  orgId = ((await org.json()) as { id: string }).id;
  const other = await api('/organizations', { body: { name: 'Other', slug: 'other' } });
  otherOrgId = ((await other.json()) as { id: string }).id;
  upstreamClient = await upstream.registerApp({
    name: 'Acme at the platform',
    appType: 'web',
    redirectUris: [`${server.issuer}/upstream/sso-${orgId}/callback`],
    firstParty: true,
    allowedScopes: ['openid', 'email', 'profile'],
  });
  const app = await server.registerApp({
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
  await upstream?.close();
});

function connector(over: Record<string, unknown> = {}) {
  return {
    issuer: upstream.issuer,
    client_id: upstreamClient.clientId,
    client_secret: upstreamClient.secret,
    domains: ['acme.example'],
    ...over,
  };
}

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

/** Submits the sign-in form of the service under test. */
async function submit(browser: TestBrowser, html: string, email: string, password = '') {
  return browser.request(new URL(formAction(html)!, server.issuer).href, {
    form: { csrf: field(html, 'csrf')!, email, password },
  });
}

/**
 * Types `email` (no password) on the service's page, signs in at the IdP as `at` in the IdP's own browser, and comes
 * back: the page the service answers, or the app's callback.
 */
async function ssoSignIn(email: string, at: { email: string; password: string }) {
  const browser = new TestBrowser();
  const { html, verifier } = await signInPage(browser);
  const sent = await submit(browser, html, email);
  assert.equal(sent.status, 303, await sent.clone().text());
  const to = new URL(sent.headers.get('location')!);
  assert.equal(to.origin, upstream.issuer, 'sent to the organization IdP');
  assert.equal(to.searchParams.get('client_id'), upstreamClient.clientId);
  assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(to.searchParams.get('nonce'));
  const idp = new TestBrowser();
  const back = `${server.issuer}/upstream/sso-${orgId}/callback`;
  let step = await idp.follow(to.href, back);
  assert.match(step.html, /<h1>Sign in<\/h1>/);
  step = await idp.follow(new URL(formAction(step.html)!, upstream.issuer).href, back, {
    form: { csrf: field(step.html, 'csrf')!, email: at.email, password: at.password },
  });
  assert.ok(step.callback, `the IdP did not send the browser back: ${step.res.status} ${step.html.slice(0, 300)}`);
  const done = await browser.follow(step.callback, CALLBACK);
  return { done, verifier };
}

async function subOf(callback: string, verifier: string) {
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier });
  return tokens.claims()!.sub;
}

async function errorOf(res: Response) {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return body.error;
}

test('the API: an admin sets the connector; the secret is sealed and never shown; bad inputs in the service error shape', async () => {
  assert.equal((await api(`/organizations/${orgId}/enterprise-sso`)).status, 404);

  const put = await api(`/organizations/${orgId}/enterprise-sso`, { method: 'PUT', body: connector() });
  assert.equal(put.status, 200, await put.clone().text());
  const out = (await put.json()) as Record<string, unknown>;
  assert.deepEqual(out.domains, ['acme.example']);
  assert.equal(out.has_client_secret, true);
  assert.equal(out.client_secret, undefined);
  assert.doesNotMatch(JSON.stringify(out), new RegExp(upstreamClient.secret!));
  const got = await api(`/organizations/${orgId}/enterprise-sso`);
  assert.doesNotMatch(await got.text(), new RegExp(upstreamClient.secret!));
  const stored = await server.runtime.db.query<{ client_secret_sealed: string }>(
    'SELECT client_secret_sealed FROM enterprise_sso_connectors WHERE organization_id = $1',
    [orgId],
  );
  assert.ok(!stored.rows[0]!.client_secret_sealed.includes(upstreamClient.secret!), 'sealed at rest');

  // Bad issuers: not a URL, not http(s), an internal address the guard refuses.
  for (const [issuer, said] of [
    ['not a url', /absolute URL/],
    ['ftp://idp.example', /http and https/],
    ['http://10.0.0.5/', /private/],
    ['http://169.254.169.254', /metadata/],
  ] as const) {
    const bad = await api(`/organizations/${otherOrgId}/enterprise-sso`, {
      method: 'PUT',
      body: connector({ issuer, domains: ['other.example'] }),
    });
    assert.equal(bad.status, 400, issuer);
    const e = await errorOf(bad);
    assert.equal(e.code, 'VALIDATION_ERROR');
    assert.match(e.message, /^issuer: /);
    assert.match(e.message, said);
  }
  // A domain another organization holds: 409; a public mail domain: 400; not a domain: 400.
  const taken = await api(`/organizations/${otherOrgId}/enterprise-sso`, {
    method: 'PUT',
    body: connector({ domains: ['other.example', 'ACME.example'] }),
  });
  assert.equal(taken.status, 409);
  assert.equal((await errorOf(taken)).code, 'CONFLICT');
  const gmail = await api(`/organizations/${otherOrgId}/enterprise-sso`, {
    method: 'PUT',
    body: connector({ domains: ['gmail.com'] }),
  });
  assert.equal(gmail.status, 400);
  assert.match((await errorOf(gmail)).message, /gmail\.com is a public mail service/);
  const junk = await api(`/organizations/${otherOrgId}/enterprise-sso`, {
    method: 'PUT',
    body: connector({ domains: ['not a domain'] }),
  });
  assert.equal(junk.status, 400);
  assert.equal((await api(`/organizations/${otherOrgId}/enterprise-sso`)).status, 404, 'nothing saved by a refusal');
  const unknownOrg = await api('/organizations/00000000-0000-4000-8000-000000000000/enterprise-sso', {
    method: 'PUT',
    body: connector({ domains: ['x.example'] }),
  });
  assert.equal(unknownOrg.status, 404);
  // Absent secret keeps the old one.
  const again = await api(`/organizations/${orgId}/enterprise-sso`, {
    method: 'PUT',
    body: connector({ client_secret: undefined, domains: ['acme.example', 'corp.acme.example'] }),
  });
  assert.equal(again.status, 200);
  const kept = (await again.json()) as { has_client_secret: boolean; domains: string[] };
  assert.equal(kept.has_client_secret, true);
  assert.deepEqual(kept.domains, ['acme.example', 'corp.acme.example']);
});

test('the API refuses anyone but an admin', async () => {
  await server.createHuman('pat@example.net', pw);
  const { callback } = await (async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const r = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, {
      email: 'pat@example.net',
      password: pw,
    });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(r.callback), { pkceCodeVerifier: verifier });
    return { callback: tokens.access_token };
  })();
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', connector({ domains: ['pat.example'] })],
    ['DELETE', undefined],
  ] as const) {
    const asPerson = await api(`/organizations/${orgId}/enterprise-sso`, { method, body, token: callback });
    assert.equal(asPerson.status, 403, method);
    const nobody = await api(`/organizations/${orgId}/enterprise-sso`, { method, body, token: 'nope' });
    assert.equal(nobody.status, 401, method);
  }
});

test('an address at a bound domain goes to the IdP; a first sign-in there makes the person and the membership', async () => {
  await upstream.createHuman('carol@acme.example', pw);
  const { done, verifier } = await ssoSignIn('Carol@Acme.example', { email: 'carol@acme.example', password: pw });
  assert.ok(done.callback, `expected the app; got ${done.res.status}: ${done.html.slice(0, 300)}`);
  const sub = await subOf(done.callback, verifier);
  const db = server.runtime.db;
  const human = await db.query<{ principal_id: string; verified: boolean }>(
    'SELECT principal_id, email_verified_at IS NOT NULL AS verified FROM humans WHERE email = $1',
    ['carol@acme.example'],
  );
  assert.equal(human.rows[0]!.principal_id, sub);
  assert.equal(human.rows[0]!.verified, true);
  const member = await db.query<{ role: string }>(
    'SELECT role FROM principal_memberships WHERE organization_id = $1 AND principal_id = $2 AND active',
    [orgId, sub],
  );
  assert.equal(member.rows[0]?.role, 'member');
  const link = await db.query<{ provider: string }>(
    'SELECT provider FROM external_identities WHERE principal_id = $1',
    [sub],
  );
  assert.deepEqual(
    link.rows.map((r) => r.provider),
    [`sso-${orgId}`],
  );
  const session = await db.query<{ provider: string }>('SELECT provider FROM login_sessions WHERE principal_id = $1', [
    sub,
  ]);
  assert.equal(session.rows[0]!.provider, `sso-${orgId}`);
});

test('an existing person at a bound domain is linked (the IdP is authoritative), and their password is refused with the reason', async () => {
  const bob = await server.createHuman('bob@acme.example', pw);
  await server.runtime.db.query('UPDATE humans SET email_verified_at = NULL WHERE principal_id = $1', [bob]);
  const browser = new TestBrowser();
  const { html } = await signInPage(browser);
  const refused = await submit(browser, html, 'bob@acme.example', pw);
  assert.equal(refused.status, 403);
  const page = await refused.text();
  assert.match(
    page,
    /Addresses at acme\.example sign in through Acme&#39;s own sign-in service, not with a password here/,
  );
  assert.equal(browser.cookie('__Host-svc_login'), undefined, 'not signed in');

  await upstream.createHuman('bob@acme.example', pw);
  const { done, verifier } = await ssoSignIn('bob@acme.example', { email: 'bob@acme.example', password: pw });
  assert.ok(done.callback, `expected the app; got ${done.res.status}: ${done.html.slice(0, 300)}`);
  assert.equal(await subOf(done.callback, verifier), bob);
  const member = await server.runtime.db.query(
    'SELECT 1 FROM principal_memberships WHERE organization_id = $1 AND principal_id = $2',
    [orgId, bob],
  );
  assert.equal(member.rowCount, 1);
});

test('a platform admin at a bound domain keeps the password, so a broken IdP cannot lock the platform out', async () => {
  const root = await server.createHuman('root@acme.example', pw, true);
  const browser = new TestBrowser();
  const { html, verifier } = await signInPage(browser);
  const res = await browser.follow(new URL(formAction(html)!, server.issuer).href, CALLBACK, {
    form: { csrf: field(html, 'csrf')!, email: 'root@acme.example', password: pw },
  });
  assert.ok(res.callback, `expected the app; got ${res.res.status}: ${res.html.slice(0, 300)}`);
  assert.equal(await subOf(res.callback, verifier), root);
});

test('an email the IdP has not verified, or one outside the connector domains, is refused', async () => {
  const dora = await upstream.createHuman('dora@acme.example', pw);
  await upstream.runtime.db.query('UPDATE humans SET email_verified_at = NULL WHERE principal_id = $1', [dora]);
  const unverified = await ssoSignIn('dora@acme.example', { email: 'dora@acme.example', password: pw });
  assert.equal(unverified.done.callback, undefined);
  assert.equal(unverified.done.res.status, 400);
  assert.match(unverified.done.html, /has not verified dora@acme\.example/);

  await upstream.createHuman('mallory@elsewhere.example', pw);
  const foreign = await ssoSignIn('eve@acme.example', { email: 'mallory@elsewhere.example', password: pw });
  assert.equal(foreign.done.callback, undefined);
  assert.equal(foreign.done.res.status, 400);
  assert.match(foreign.done.html, /an address at elsewhere\.example, which is not one of the organization/);
  const made = await server.runtime.db.query('SELECT 1 FROM humans WHERE email IN ($1, $2)', [
    'dora@acme.example',
    'mallory@elsewhere.example',
  ]);
  assert.equal(made.rowCount, 0, 'nobody made');
});

test('an address at an unbound domain signs in with its password as before; removing the connector frees the domain', async () => {
  const browser = new TestBrowser();
  const { html } = await signInPage(browser);
  const missing = await submit(browser, html, 'someone@unbound.example');
  assert.equal(missing.status, 400, 'no password, no connector: the fields are missing');
  assert.equal((await api(`/organizations/${orgId}/enterprise-sso`, { method: 'DELETE' })).status, 204);
  const b2 = new TestBrowser();
  const page = await signInPage(b2);
  const wrong = await submit(b2, page.html, 'bob@acme.example', 'not the password at all');
  assert.equal(wrong.status, 401, 'checked as a password again');
});
