import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser, field, formAction } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

let server: Server;
let web: { id: string; clientId: string; secret: string | undefined };
let spa: { clientId: string };
const erin = { email: 'erin@example.com', password: 'erin uses a long password' };
const ADMIN_TOKEN = 'bad-inputs-admin-token-0123456789';

before(async () => {
  server = await startServer('idbad', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  await server.createHuman(erin.email, erin.password);
  web = await server.registerApp({ name: 'Web', appType: 'web', redirectUris: [CALLBACK], firstParty: true });
  spa = await server.registerApp({ name: 'SPA', appType: 'spa', redirectUris: [CALLBACK], firstParty: true });
});
after(async () => server?.close());

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string>): string {
  return `${server.issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: CALLBACK, scope: 'openid email', state: 's1', ...params })}`;
}

async function codeFor(clientId: string, extra: Record<string, string> = {}) {
  const p = pkce();
  const { callback } = await authorizeInBrowser(
    server.issuer,
    new TestBrowser(),
    authorizeUrl({ client_id: clientId, code_challenge: p.challenge, code_challenge_method: 'S256', ...extra }),
    erin,
  );
  const code = new URL(callback).searchParams.get('code');
  assert.ok(code, callback);
  return { code, verifier: p.verifier };
}

function exchange(code: string, verifier: string | undefined, overrides: Record<string, string> = {}) {
  return form(
    `${server.issuer}/oauth/token`,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      ...(verifier ? { code_verifier: verifier } : {}),
      ...overrides,
    },
    { authorization: basic(web.clientId, web.secret!) },
  );
}

test('an unregistered redirect URI is refused on the page, never redirected to', async () => {
  const res = await fetch(authorizeUrl({ client_id: web.clientId, redirect_uri: 'https://evil.example/cb' }), {
    redirect: 'manual',
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null);
  const html = await res.text();
  assert.match(html, /<html lang="en">/);
  assert.match(html, /redirect_uri/);
  const unknownClient = await fetch(authorizeUrl({ client_id: 'nobody' }), { redirect: 'manual' });
  assert.equal(unknownClient.status, 400);
  assert.match(await unknownClient.text(), /invalid_client/);
});

test('PKCE: public clients must use it, only S256, and the verifier must match', async () => {
  const missing = await fetch(authorizeUrl({ client_id: spa.clientId }), { redirect: 'manual' });
  assert.equal(missing.status, 303);
  const m = new URL(missing.headers.get('location')!);
  assert.ok(m.href.startsWith(CALLBACK));
  assert.equal(m.searchParams.get('error'), 'invalid_request');
  assert.equal(m.searchParams.get('state'), 's1');

  const plain = await fetch(
    authorizeUrl({ client_id: spa.clientId, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }),
    { redirect: 'manual' },
  );
  assert.equal(new URL(plain.headers.get('location')!).searchParams.get('error'), 'invalid_request');

  const { code } = await codeFor(web.clientId);
  const wrong = await exchange(code, pkce().verifier);
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error, 'invalid_grant');

  const { code: code2 } = await codeFor(web.clientId);
  const none = await exchange(code2, undefined);
  assert.equal(none.status, 400);
  assert.equal(none.json.error, 'invalid_grant');
});

test('a reused code fails and revokes the tokens it issued', async () => {
  const { code, verifier } = await codeFor(web.clientId);
  const first = await exchange(code, verifier);
  assert.equal(first.status, 200, first.text);
  const again = await exchange(code, verifier);
  assert.equal(again.status, 400);
  assert.equal(again.json.error, 'invalid_grant');
  for (const token of [first.json.access_token, first.json.refresh_token]) {
    const intro = await form(
      `${server.issuer}/oauth/introspect`,
      { token },
      { authorization: basic(web.clientId, web.secret!) },
    );
    assert.deepEqual(intro.json, { active: false });
  }
  const used = await server.runtime.db.query<{ used: boolean }>(
    'SELECT used FROM oauth_auth_codes WHERE code_signature = $1',
    [createHash('sha256').update(code).digest('hex')],
  );
  assert.equal(used.rows[0]!.used, true);
});

test('a code exchanged twice at the same time yields tokens at most once, and none survive', async () => {
  for (let round = 0; round < 3; round++) {
    const { code, verifier } = await codeFor(web.clientId);
    const answers = await Promise.all([exchange(code, verifier), exchange(code, verifier), exchange(code, verifier)]);
    const granted = answers.filter((a) => a.status === 200);
    assert.ok(granted.length <= 1, `round ${round}: ${granted.length} exchanges of one code succeeded`);
    for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.json.error, 'invalid_grant');
    for (const g of granted) {
      for (const token of [g.json.access_token, g.json.refresh_token]) {
        const intro = await form(
          `${server.issuer}/oauth/introspect`,
          { token },
          { authorization: basic(web.clientId, web.secret!) },
        );
        assert.deepEqual(intro.json, { active: false }, 'a reuse revokes what the code issued');
      }
    }
  }
});

test('a refresh token presented twice at the same time rotates at most once, and the family is revoked', async () => {
  const { code, verifier } = await codeFor(web.clientId);
  const first = await exchange(code, verifier);
  assert.equal(first.status, 200, first.text);
  const refresh = () =>
    form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'refresh_token', refresh_token: first.json.refresh_token },
      { authorization: basic(web.clientId, web.secret!) },
    );
  const answers = await Promise.all([refresh(), refresh(), refresh()]);
  const rotated = answers.filter((a) => a.status === 200);
  assert.ok(rotated.length <= 1, `${rotated.length} rotations of one refresh token succeeded`);
  for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.json.error, 'invalid_grant');
  for (const r of rotated) {
    const next = await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'refresh_token', refresh_token: r.json.refresh_token },
      { authorization: basic(web.clientId, web.secret!) },
    );
    assert.equal(next.json.error, 'invalid_grant', 'the rotated token died with its family');
  }
});

test("an expired code, a wrong redirect URI at the token endpoint, another client's code: invalid_grant", async () => {
  const quick = await server.registerApp({
    name: 'Quick',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    authorizationCodeTtl: 1,
  });
  const { code, verifier } = await codeFor(quick.clientId);
  await new Promise((r) => setTimeout(r, 2100));
  const expired = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
    { authorization: basic(quick.clientId, quick.secret!) },
  );
  assert.equal(expired.status, 400);
  assert.equal(expired.json.error, 'invalid_grant');

  const c2 = await codeFor(web.clientId);
  const otherUri = await exchange(c2.code, c2.verifier, { redirect_uri: 'http://localhost:8765/other' });
  assert.equal(otherUri.json.error, 'invalid_grant');

  const c3 = await codeFor(quick.clientId);
  const stolen = await exchange(c3.code, c3.verifier);
  assert.equal(stolen.json.error, 'invalid_grant');

  const garbage = await exchange('not-a-code', 'x'.repeat(43));
  assert.equal(garbage.json.error, 'invalid_grant');
  const wrongSecret = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK },
    { authorization: basic(web.clientId, 'cs_wrong') },
  );
  assert.equal(wrongSecret.status, 401);
  assert.equal(wrongSecret.json.error, 'invalid_client');
  const spaClientCredentials = await form(`${server.issuer}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: spa.clientId,
  });
  assert.equal(spaClientCredentials.json.error, 'unauthorized_client');
});

test('unknown or disallowed scopes are refused with invalid_scope', async () => {
  const p = pkce();
  const res = await new TestBrowser().follow(
    authorizeUrl({
      client_id: web.clientId,
      scope: 'openid rocket-launch',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    }),
    CALLBACK,
  );
  assert.ok(res.callback, `${res.res.status} ${res.html.slice(0, 600)}`);
  assert.equal(new URL(res.callback).searchParams.get('error'), 'invalid_scope');
  const admin = await new TestBrowser().follow(
    authorizeUrl({
      client_id: web.clientId,
      scope: 'openid admin',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    }),
    CALLBACK,
  );
  assert.equal(
    new URL(admin.callback!).searchParams.get('error'),
    'invalid_scope',
    'the app is not allowed the admin scope',
  );
});

test('a tampered state is caught by the client; tampered interaction ids and forms are refused', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    web.clientId,
    web.secret,
    oidc.ClientSecretBasic(web.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid',
    state: 'the-real-state',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, erin);
  assert.equal(new URL(callback).searchParams.get('state'), 'the-real-state', 'state is returned unchanged');
  const tampered = new URL(callback);
  tampered.searchParams.set('state', 'forged');
  await assert.rejects(
    oidc.authorizationCodeGrant(config, tampered, { pkceCodeVerifier: verifier, expectedState: 'the-real-state' }),
    (err: Error) => /state/.test(String((err.cause as Error | undefined)?.message)),
  );

  const browser = new TestBrowser();
  const p = pkce();
  const page = await browser.follow(
    authorizeUrl({ client_id: web.clientId, code_challenge: p.challenge, code_challenge_method: 'S256' }),
    CALLBACK,
  );
  assert.match(page.html, /<h1>Sign in<\/h1>/);
  const action = new URL(formAction(page.html)!, server.issuer).href;
  const csrf = field(page.html, 'csrf')!;

  const otherUid = await browser.request(action.replace(/interaction\/[^/]+/, 'interaction/forged-uid'), {
    form: { csrf, email: erin.email, password: erin.password },
  });
  assert.equal(otherUid.status, 400);
  const noCsrf = await browser.request(action, { form: { email: erin.email, password: erin.password } });
  assert.equal(noCsrf.status, 403);
  const crossSite = await browser.request(action, {
    form: { csrf, email: erin.email, password: erin.password },
    headers: { origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  const stranger = await new TestBrowser().request(action, {
    form: { csrf, email: erin.email, password: erin.password },
  });
  assert.equal(stranger.status, 400, 'without the interaction cookie the form is refused');
  const empty = await browser.request(action, { form: { csrf } });
  assert.equal(empty.status, 400);
  assert.match(await empty.text(), /role="alert"/);
  const ok = await browser.follow(action, CALLBACK, { form: { csrf, email: erin.email, password: erin.password } });
  assert.ok(ok.callback, 'the genuine form still works');
});

test("management API: authentication comes before body parsing, in the platform's error shape; elsewhere the OAuth shape", async () => {
  const res = await fetch(`${server.issuer}/api/v1/principals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":',
  });
  assert.equal(res.status, 401, 'authentication comes first');
  const body = (await res.json()) as any;
  assert.equal(body.error.code, 'UNAUTHORIZED');
  assert.equal(typeof body.error.message, 'string');
  const unknownApi = await fetch(`${server.issuer}/api/v1/nowhere`);
  assert.equal(unknownApi.status, 404);
  assert.equal(((await unknownApi.json()) as any).error.code, 'NOT_FOUND');
  const unknownRoute = await fetch(`${server.issuer}/nowhere`);
  assert.equal(unknownRoute.status, 404);
  assert.equal(((await unknownRoute.json()) as any).error, 'not_found');
});

test('repeated failed sign-ins slow down per account and per address', async () => {
  const browser = new TestBrowser();
  const p = pkce();
  const page = await browser.follow(
    authorizeUrl({ client_id: web.clientId, code_challenge: p.challenge, code_challenge_method: 'S256' }),
    CALLBACK,
  );
  const action = new URL(formAction(page.html)!, server.issuer).href;
  const csrf = field(page.html, 'csrf')!;
  for (let i = 0; i < 5; i++) {
    const bad = await browser.request(action, { form: { csrf, email: erin.email, password: `wrong password ${i}` } });
    assert.equal(bad.status, 401);
    assert.match(await bad.text(), /not correct/);
  }
  const blocked = await browser.request(action, { form: { csrf, email: erin.email, password: erin.password } });
  assert.equal(blocked.status, 429, 'even the right password waits');
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
  assert.match(await blocked.text(), /Too many failed sign-in attempts/);
  const otherAccount = await browser.request(action, {
    form: { csrf, email: 'someone-else@example.com', password: 'whatever it is' },
  });
  assert.equal(otherAccount.status, 429, 'the address is slowed down too');
  await new Promise((r) => setTimeout(r, 1100 * Number(blocked.headers.get('retry-after'))));
  const ok = await browser.follow(action, CALLBACK, { form: { csrf, email: erin.email, password: erin.password } });
  assert.ok(ok.callback, 'after waiting the right password works');
});

test('malformed posts to the browser pages get an HTML error page, never a 500 or a mangled body', async () => {
  const browser = new TestBrowser();
  const p = pkce();
  const page = await browser.follow(
    authorizeUrl({ client_id: web.clientId, code_challenge: p.challenge, code_challenge_method: 'S256' }),
    CALLBACK,
  );
  const action = new URL(formAction(page.html)!, server.issuer).href;
  const csrf = field(page.html, 'csrf')!;
  const cases: { url: string; init: RequestInit; status: number }[] = [
    { url: action, init: { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'csrf=x' }, status: 415 },
    {
      url: action,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${csrf}&csrf=${csrf}&email=a&password=b`,
      },
      status: 400,
    },
    {
      url: action,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${'a'.repeat(20_000)}`,
      },
      status: 413,
    },
    {
      url: `${server.issuer}/signout`,
      init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=a&csrf=b' },
      status: 400,
    },
    {
      url: `${server.issuer}/signout`,
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"csrf":' },
      status: 400,
    },
  ];
  for (const c of cases) {
    const res = await fetch(c.url, { ...c.init, redirect: 'manual' });
    const text = await res.text();
    assert.equal(res.status, c.status, `${c.init.body?.toString().slice(0, 40)}: ${text.slice(0, 200)}`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(text, /<html lang="en">[\s\S]*<h1>/);
  }
});

test('unknown OAuth endpoints and wrong methods answer in the OAuth error shape', async () => {
  const get = await fetch(`${server.issuer}/oauth/token`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  assert.equal(((await get.json()) as any).error, 'invalid_request');
  const unknown = await fetch(`${server.issuer}/oauth/nothing-here`, { method: 'POST' });
  assert.equal(unknown.status, 404);
  assert.match(((await unknown.json()) as any).error_description, /no endpoint POST \/oauth\/nothing-here/);
});

test('a NUL character in any field is a 400 in the shape of the route, never a 500', async () => {
  // PostgreSQL cannot store NUL in text or jsonb: each of these reached the database and failed with a 500.
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  for (const [path, body] of [
    ['/api/v1/principals', { type: 'human', email: 'nul\u0000@example.com' }],
    ['/api/v1/organizations', { name: 'Nul\u0000', slug: 'nul-org' }],
    ['/api/v1/applications', { name: 'Nul\u0000', app_type: 'machine' }],
  ] as const) {
    const res = await fetch(`${server.issuer}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
    assert.equal(res.status, 400, path);
    const answer = (await res.json()) as any;
    assert.equal(answer.error.code, 'VALIDATION_ERROR', path);
    assert.match(answer.error.message, /must not contain the NUL character/);
  }

  const authorize = await fetch(authorizeUrl({ client_id: web.clientId, login_hint: 'a\u0000b' }), {
    redirect: 'manual',
  });
  assert.equal(authorize.status, 400);
  assert.equal(((await authorize.json()) as any).error, 'invalid_request');
  const unknownClient = await fetch(authorizeUrl({ client_id: 'app\u0000' }), { redirect: 'manual' });
  assert.equal(unknownClient.status, 400);

  // The token endpoint's body is read by the provider, not Fastify: the client lookup refuses the NUL itself.
  const token = await form(`${server.issuer}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: 'app\u0000',
    client_secret: 'x',
  });
  assert.equal(token.status, 401, token.text);
  assert.equal(token.json.error, 'invalid_client');

  const browser = new TestBrowser();
  const p = pkce();
  const page = await browser.follow(
    authorizeUrl({ client_id: web.clientId, code_challenge: p.challenge, code_challenge_method: 'S256' }),
    CALLBACK,
  );
  const action = new URL(formAction(page.html)!, server.issuer).href;
  const signIn = await browser.request(action, {
    form: { csrf: field(page.html, 'csrf')!, email: 'erin\u0000@example.com', password: erin.password },
  });
  assert.equal(signIn.status, 400);
  assert.match(signIn.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await signIn.text(), /<h1>Request refused<\/h1>/);
});

test('the social sign-in routes refuse malformed requests with an HTML page, not a mangled "[object Object]"', async () => {
  for (const url of [
    `/upstream/${'a'.repeat(41)}/callback`,
    `/upstream/github/callback?code=${'a'.repeat(3000)}`,
    '/upstream/github/callback?state=%00',
  ]) {
    const res = await fetch(`${server.issuer}${url}`, { redirect: 'manual' });
    const text = await res.text();
    assert.equal(res.status, 400, `${url}: ${text.slice(0, 200)}`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, url);
    assert.match(text, /<html lang="en">[\s\S]*<h1>/, url);
  }
});

test('redirect_uri is required at the authorization endpoint and the code exchange, even for an app with one registered URI', async () => {
  // The provider would fill in an app's only registered URI; the contract makes the parameter required.
  const url = new URL(authorizeUrl({ client_id: web.clientId }));
  url.searchParams.delete('redirect_uri');
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null, 'no redirect without a redirect_uri');
  assert.match(await res.text(), /redirect_uri/);

  const { code, verifier } = await codeFor(web.clientId);
  const withoutUri = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'authorization_code', code, code_verifier: verifier },
    { authorization: basic(web.clientId, web.secret!) },
  );
  assert.equal(withoutUri.status, 400, withoutUri.text);
  assert.equal(withoutUri.json.error, 'invalid_request');
  assert.match(withoutUri.json.error_description, /redirect_uri/);
});

test('management API: a field the route does not take is named in the 400', async () => {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const app = await fetch(`${server.issuer}/api/v1/applications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Typo', app_type: 'machine', scopes: ['openid'] }),
  });
  assert.equal(app.status, 400);
  assert.match(((await app.json()) as any).error.message, /must NOT have additional properties \('scopes'\)/);
  const org = await fetch(`${server.issuer}/api/v1/organizations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Acme', slug: 'acme-typo', colour: 'red' }),
  });
  assert.equal(org.status, 400);
  assert.match(((await org.json()) as any).error.message, /\('colour'\)/);
});

test('scope is required at the authorization endpoint: without it the request goes back to the app with invalid_request', async () => {
  for (const scope of [undefined, '']) {
    const url = new URL(authorizeUrl({ client_id: web.clientId }));
    if (scope === undefined) url.searchParams.delete('scope');
    else url.searchParams.set('scope', scope);
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 303, `scope ${JSON.stringify(scope)}`);
    const back = new URL(res.headers.get('location')!);
    assert.ok(back.href.startsWith(CALLBACK), back.href);
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.match(back.searchParams.get('error_description') ?? '', /scope/);
    assert.equal(back.searchParams.get('state'), 's1');
  }
});

test('an unregistered post_logout_redirect_uri gets a sign-out error page, never a redirect', async () => {
  const url = `${server.issuer}/oauth/logout?${new URLSearchParams({ client_id: web.clientId, post_logout_redirect_uri: 'https://evil.example/' })}`;
  const res = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null);
  const html = await res.text();
  assert.match(html, /<h1>Sign-out request failed<\/h1>/, 'named as the sign-out it is, not a sign-in');
  assert.match(html, /post_logout_redirect_uri not registered/);
});

test('management API: a new principal with a bad field is told what is wrong with that kind only', async () => {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const create = async (body: unknown) => {
    const res = await fetch(`${server.issuer}/api/v1/principals`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 400, JSON.stringify(body));
    const answer = (await res.json()) as any;
    assert.equal(answer.error.code, 'VALIDATION_ERROR');
    return answer.error.message as string;
  };
  // Ajv's union message also said "must have required property 'name'" (a service's and an agent's field) for a human.
  const extra = await create({ type: 'human', email: 'scopes@example.com', allowed_scopes: ['openid'] });
  assert.match(extra, /unknown property 'allowed_scopes' \(a human takes type, email, password/);
  assert.doesNotMatch(extra, /name'|anyOf/);
  const long = await create({ type: 'human', email: `${'a'.repeat(400)}@example.com` });
  assert.equal(long, 'body /email must not have more than 320 characters');
  const agent = await create({ type: 'agent', name: 'helper' });
  assert.match(agent, /model_id/);
  assert.doesNotMatch(agent, /email|service_type|anyOf/);
  assert.match(await create({ type: 'application', name: 'x' }), /body \/type must be one of human, service, agent/);
  assert.match(await create({ email: 'x@example.com' }), /body \/type must be one of/);
  assert.equal(await create([]), 'body must be an object');
  // A right body still makes the principal.
  const ok = await fetch(`${server.issuer}/api/v1/principals`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ type: 'service', name: 'reports', service_type: 'batch' }),
  });
  assert.equal(ok.status, 201);
});
