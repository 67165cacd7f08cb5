import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GitHubStandIn, GoogleStandIn } from '../support/vendors/social-login.ts';
import { startDashboard, type DashboardServer } from './harness.ts';

/** Start → provider (which approves at once) → callback with the state cookie: the callback's answer. */
async function login(s: DashboardServer, provider: string, query = ''): Promise<Response> {
  const start = await fetch(`${s.url}/api/v1/auth/${provider}${query}`, { redirect: 'manual' });
  assert.equal(start.status, 302, await start.clone().text());
  const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
  const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  assert.equal(atProvider.status, 302, await atProvider.clone().text());
  return fetch(atProvider.headers.get('location')!, { headers: { cookie }, redirect: 'manual' });
}

describe('signing in with GitHub and Google (local stand-ins speaking their documented APIs)', () => {
  let github: GitHubStandIn;
  let google: GoogleStandIn;
  let s: DashboardServer;
  before(async () => {
    github = await new GitHubStandIn('gh-client', 'gh-secret').start();
    google = await new GoogleStandIn('g-client.apps.googleusercontent.com', 'g-secret').start();
    s = await startDashboard('dashvendors', {
      DASHBOARD_GITHUB_CLIENT_ID: github.clientId,
      DASHBOARD_GITHUB_CLIENT_SECRET: github.clientSecret,
      DASHBOARD_GITHUB_URL: github.url,
      DASHBOARD_GITHUB_API_URL: `${github.url}/api`,
      DASHBOARD_GOOGLE_CLIENT_ID: google.clientId,
      DASHBOARD_GOOGLE_CLIENT_SECRET: google.clientSecret,
      DASHBOARD_GOOGLE_ISSUER: google.url,
      DASHBOARD_OIDC_PROVIDERS: JSON.stringify([
        { id: 'gone', issuer: 'http://127.0.0.1:1/', clientId: 'c', clientSecret: 'TOPSECRET' },
      ]),
    });
    await s.createTenant('acme');
    await s.createTenant('globex');
    for (const [tenant, email] of [
      ['acme', 'gina@acme.example'],
      ['acme', 'gus@acme.example'],
      ['globex', 'gina@acme.example'],
    ]) {
      assert.equal(
        (await s.cli(['users', 'create', '--tenant', tenant!, '--email', email!, '--name', 'G', '--role', 'viewer']))
          .code,
        0,
      );
    }
  });
  after(async () => {
    await s?.close();
    await github?.close();
    await google?.close();
  });

  test('the providers list names both', async () => {
    const r = await s.request('GET', '/api/v1/auth/providers');
    assert.deepEqual(
      r.body.providers.map((p: any) => p.id),
      ['github', 'google', 'gone'],
    );
  });

  test('an OpenID issuer that cannot be reached answers 503 UNAVAILABLE, without its secret', async () => {
    const r = await fetch(`${s.url}/api/v1/auth/gone`, { redirect: 'manual' });
    assert.equal(r.status, 503);
    const body = (await r.json()) as any;
    assert.equal(body.error.code, 'UNAVAILABLE');
    assert.doesNotMatch(JSON.stringify(body), /TOPSECRET/);
    assert.equal(r.headers.getSetCookie().length, 0);
  });

  test('GitHub: PKCE, the primary verified email, a token pair; the account is linked to the user', async () => {
    github.person = { id: 4242, login: 'gina', name: 'Gina', email: 'gina@acme.example', verified: true };
    const done = await login(s, 'github', '?tenant=acme');
    assert.equal(done.status, 200, await done.clone().text());
    const pair = (await done.json()) as any;
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } });
    assert.equal(me.body.email, 'gina@acme.example');
    const exchange = github.requests.find((r) => r.path === '/login/oauth/access_token')!;
    assert.ok(exchange.form!.get('code_verifier'));
    const authorize = github.requests.find((r) => r.path === '/login/oauth/authorize')!;
    assert.equal(authorize.query.get('code_challenge_method'), 'S256');
    assert.equal(authorize.query.get('scope'), 'read:user user:email');
    assert.match(github.requests.find((r) => r.path === '/api/user')!.authorization!, /^Bearer gho_/);

    // The user the admin named "G" takes the name GitHub has for the person.
    assert.equal(me.body.name, 'Gina');

    // Later the person changes their name and email at GitHub: the linked account still signs in as the same user,
    // which takes both (the email is verified there), and the new access token carries the new email.
    github.person = { ...github.person, name: 'Gina Gale', email: 'gina@new.example' };
    const again = await login(s, 'github', '?tenant=acme');
    assert.equal(again.status, 200);
    const second = (await again.json()) as any;
    const me2 = await s.request('GET', '/api/v1/auth/me', {
      headers: { authorization: `Bearer ${second.accessToken}` },
    });
    assert.equal(me2.body.id, me.body.id);
    assert.equal(me2.body.name, 'Gina Gale');
    assert.equal(me2.body.email, 'gina@new.example');
    assert.equal(
      JSON.parse(Buffer.from(second.accessToken.split('.')[1], 'base64url').toString()).email,
      'gina@new.example',
    );
    const owner = await s.signIn({ tenant: 'acme', role: 'owner' });
    const records = (await s.request('GET', '/api/v1/audit?action=user.sign_in', { as: owner })).body.items;
    assert.deepEqual(records[0].details, { provider: 'github', updated: ['name', 'email'] });
    assert.deepEqual(records[1].details, { provider: 'github', updated: ['name'] });

    // An address another user of the tenant has is not taken; an unchanged profile changes nothing.
    github.person = { ...github.person, email: 'GUS@acme.example' };
    const taken = await login(s, 'github', '?tenant=acme');
    assert.equal(taken.status, 200);
    const me3 = await s.request('GET', '/api/v1/auth/me', {
      headers: { authorization: `Bearer ${((await taken.json()) as any).accessToken}` },
    });
    assert.equal(me3.body.email, 'gina@new.example');
    const last = (await s.request('GET', '/api/v1/audit?action=user.sign_in', { as: owner })).body.items[0];
    assert.deepEqual(last.details, { provider: 'github' });
  });

  test('GitHub: an unverified primary email matches nobody (403); a refused exchange is 401', async () => {
    github.person = { id: 777, login: 'gus', name: 'Gus', email: 'gus@acme.example', verified: false };
    const unverified = await login(s, 'github');
    assert.equal(unverified.status, 403);
    assert.equal(((await unverified.json()) as any).error.code, 'FORBIDDEN');
    github.person = { ...github.person, verified: true };
    github.refuseExchange = true;
    try {
      const refused = await login(s, 'github');
      assert.equal(refused.status, 401);
      const body = (await refused.json()) as any;
      assert.equal(body.error.code, 'UNAUTHORIZED');
      assert.match(body.error.message, /bad_verification_code/);
      assert.doesNotMatch(JSON.stringify(body), /gh-secret/);
    } finally {
      github.refuseExchange = false;
    }
    assert.equal((await login(s, 'github')).status, 200);
  });

  test('Google: OpenID with nonce and PKCE; a person in two tenants chooses with tenant=', async () => {
    // A name with a line break, a tab and more than 200 characters becomes one line of 200.
    const long = `Gina\n\tGoogle ${'x'.repeat(300)}`;
    google.person = { id: 1001, login: 'gina', name: long, email: 'gina@acme.example', verified: true };
    const done = await login(s, 'google', '?tenant=globex');
    assert.equal(done.status, 200, await done.clone().text());
    const pair = (await done.json()) as any;
    const me = await s.request('GET', '/api/v1/auth/me', { headers: { authorization: `Bearer ${pair.accessToken}` } });
    assert.equal(me.body.name, `Gina Google ${'x'.repeat(188)}`);
    assert.equal(me.body.name.length, 200);
    // A name that is blank, or only the email, leaves the name as it is.
    for (const name of ['   ', 'GINA@acme.example']) {
      google.person = { ...google.person, name };
      assert.equal((await login(s, 'google', '?tenant=globex')).status, 200);
    }
    const after = await s.request('GET', '/api/v1/auth/me', {
      headers: { authorization: `Bearer ${pair.accessToken}` },
    });
    assert.equal(after.body.name, me.body.name);
    const claims = JSON.parse(Buffer.from(pair.accessToken.split('.')[1], 'base64url').toString());
    const globex = (await s.cli(['tenants', 'list'])).out.find((l) => l.includes('globex'))!;
    assert.equal(claims.tid, Number(globex.split('\t')[0]));
    const authorize = google.requests.find((r) => r.path === '/o/oauth2/v2/auth')!;
    assert.ok(authorize.query.get('nonce'));
    assert.equal(authorize.query.get('code_challenge_method'), 'S256');
    assert.match(authorize.query.get('scope')!, /openid/);
  });

  test('Google: an ID token with another nonce, or an unverified email, is refused', async () => {
    google.person = { id: 1002, login: 'gus', name: 'Gus', email: 'gus@acme.example', verified: true };
    google.wrongNonce = true;
    try {
      const r = await login(s, 'google');
      assert.equal(r.status, 401);
    } finally {
      google.wrongNonce = false;
    }
    google.person = { ...google.person, id: 1003, verified: false };
    assert.equal((await login(s, 'google')).status, 403);
  });
});
