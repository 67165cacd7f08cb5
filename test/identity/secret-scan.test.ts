import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser, field } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { signInAt } from './account-support.ts';

/**
 * Every flow that handles a secret runs here and hands back the raw values it saw (secrets, tokens, codes, cookies,
 * invitation tokens, passwords). Afterwards every text, JSON and bytea column of the identity schema is read and none
 * may contain any of them. To cover a new kind of secret (TOTP secrets and recovery codes, passkey challenges...), add
 * a flow to FLOWS that exercises it and returns the raw values it handled.
 */
type Flow = (s: Server) => Promise<string[]>;

const ADMIN = randomBytes(24).toString('hex');
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const API_KEY = 'urn:platform:params:oauth:token-type:api-key';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function api(s: Server, path: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${s.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (r.status === 204 ? undefined : await r.json()) as any }));
}

/** The values of every cookie a test browser was sent (login session, provider session and interaction, form cookie). */
function cookieValues(b: TestBrowser): string[] {
  return b.setCookieHeaders.map((h) => h.split(';')[0]!.split('=').slice(1).join('=')).filter((v) => v.length >= 16);
}

/** The authorization code flow with PKCE through the pages, a refresh, userinfo, introspection and revocation. */
async function codeFlow(
  s: Server,
  who: { email: string; password: string },
  extra: Record<string, string> = {},
): Promise<string[]> {
  const app = await s.registerApp({
    name: 'Scanned web app',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'profile', 'email'],
  });
  const config = await oidc.discovery(
    new URL(s.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const browser = new TestBrowser();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid profile email',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  const { callback } = await authorizeInBrowser(s.issuer, browser, url.href, who);
  const code = new URL(callback).searchParams.get('code')!;
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  await oidc.fetchUserInfo(config, refreshed.access_token, tokens.claims()!.sub);
  await form(
    `${s.issuer}/oauth/introspect`,
    { token: refreshed.access_token },
    { authorization: basic(app.clientId, app.secret!) },
  );
  await form(
    `${s.issuer}/oauth/revoke`,
    { token: refreshed.refresh_token! },
    { authorization: basic(app.clientId, app.secret!) },
  );
  return [
    app.secret!,
    who.password,
    verifier,
    state,
    nonce,
    code,
    tokens.access_token,
    tokens.refresh_token!,
    tokens.id_token!,
    refreshed.access_token,
    refreshed.refresh_token!,
    refreshed.id_token!,
    ...cookieValues(browser),
  ];
}

const FLOWS: [string, Flow][] = [
  ['admin token', async () => [ADMIN]],
  [
    'authorization code, refresh, userinfo, introspection, revocation',
    async (s) => {
      const who = { email: 'scan-person@example.com', password: 'scan person password' };
      await s.createHuman(who.email, who.password);
      return codeFlow(s, who);
    },
  ],
  [
    'client credentials and secret rotation',
    async (s) => {
      const app = await s.registerApp({ name: 'Scanned machine', appType: 'machine', allowedScopes: ['reports:read'] });
      const t = await form(
        `${s.issuer}/oauth/token`,
        { grant_type: 'client_credentials', scope: 'reports:read' },
        { authorization: basic(app.clientId, app.secret!) },
      );
      assert.equal(t.status, 200, t.text);
      const second = (await api(s, `/applications/${app.id}/secrets`, { method: 'POST' })).body;
      await api(s, `/applications/${app.id}/secrets/${second.id}/revoke`, {
        method: 'POST',
        body: { reason: 'rotated' },
      });
      return [app.secret!, t.json.access_token, second.client_secret];
    },
  ],
  [
    "the console's secret rotation (recorded in admin_changes without the secret)",
    async (s) => {
      const app = await s.registerApp({ name: 'Scanned rotation', appType: 'service' });
      const rotated = (
        await api(s, `/applications/${app.id}/secrets/rotate`, { method: 'POST', body: { previous_expire_in: 0 } })
      ).body;
      assert.match(rotated.secret.client_secret, /^cs_/);
      return [app.secret!, rotated.secret.client_secret];
    },
  ],
  [
    'API key and key pair at the token endpoint, organization-scoped',
    async (s) => {
      const gateway = await s.registerApp({
        name: 'Scanned gateway',
        appType: 'machine',
        allowedScopes: ['reports:read'],
      });
      const svc = (
        await api(s, '/principals', {
          method: 'POST',
          body: { type: 'service', name: 'scanned-service', service_type: 'worker', allowed_scopes: ['reports:read'] },
        })
      ).body;
      const org = (await api(s, '/organizations', { method: 'POST', body: { name: 'Scanned', slug: 'scanned' } })).body;
      await api(s, `/organizations/${org.id}/members`, {
        method: 'POST',
        body: { principal_id: svc.id, role: 'worker' },
      });
      const key = (await api(s, `/principals/${svc.id}/credentials`, { method: 'POST', body: { type: 'api_key' } }))
        .body.api_key as string;
      const exchanged = await form(
        `${s.issuer}/oauth/token`,
        { grant_type: EXCHANGE, subject_token: key, subject_token_type: API_KEY, organization: 'scanned' },
        { authorization: basic(gateway.clientId, gateway.secret!) },
      );
      assert.equal(exchanged.status, 200, exchanged.text);
      const pair = await generateKeyPair('ES256', { extractable: true });
      await api(s, `/principals/${svc.id}/credentials`, {
        method: 'POST',
        body: {
          type: 'keypair',
          public_key: await exportSPKI(pair.publicKey),
          key_algorithm: 'ES256',
          key_id: 'scanned-key',
        },
      });
      const jti = randomUUID();
      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'scanned-key' })
        .setIssuer(svc.id)
        .setSubject(svc.id)
        .setAudience(s.issuer)
        .setIssuedAt()
        .setExpirationTime('60s')
        .setJti(jti)
        .sign(pair.privateKey);
      const signed = await form(
        `${s.issuer}/oauth/token`,
        { grant_type: JWT_BEARER, assertion },
        { authorization: basic(gateway.clientId, gateway.secret!) },
      );
      assert.equal(signed.status, 200, signed.text);
      return [gateway.secret!, key, exchanged.json.access_token, assertion, jti, signed.json.access_token];
    },
  ],
  [
    'organization-scoped authorization',
    async (s) => {
      const who = { email: 'scan-member@example.com', password: 'scan member password' };
      const id = await s.createHuman(who.email, who.password);
      const org = (
        await api(s, '/organizations', { method: 'POST', body: { name: 'Scanned team', slug: 'scanned-team' } })
      ).body;
      await api(s, `/organizations/${org.id}/members`, { method: 'POST', body: { principal_id: id, role: 'member' } });
      return codeFlow(s, who, { organization: 'scanned-team' });
    },
  ],
  [
    'passwords: set by an admin, changed on the page and through the API',
    async (s) => {
      const who = { email: 'scan-changer@example.com', password: 'scan changer first' };
      const id = await s.createHuman(who.email, who.password);
      await api(s, `/principals/${id}/password`, { method: 'PUT', body: { password: 'scan changer second' } });
      const b = new TestBrowser();
      const { html: page } = await signInAt(s.issuer, b, '/account/password', {
        email: who.email,
        password: 'scan changer second',
      });
      const changed = await b.request(`${s.issuer}/account/password`, {
        form: {
          csrf: field(page, 'csrf')!,
          current_password: 'scan changer second',
          new_password: 'scan changer third',
          confirm_password: 'scan changer third',
        },
      });
      assert.equal(changed.status, 200);
      const app = await s.registerApp({
        name: 'Scanned self service',
        appType: 'web',
        redirectUris: [CALLBACK],
        firstParty: true,
        allowedScopes: ['openid'],
      });
      const config = await oidc.discovery(
        new URL(s.issuer),
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
      const { callback } = await authorizeInBrowser(s.issuer, b, url.href, undefined);
      const token = (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }))
        .access_token;
      const put = await fetch(`${s.issuer}/api/v1/account/password`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ current_password: 'scan changer third', new_password: 'scan changer fourth' }),
      });
      assert.equal(put.status, 204);
      return [
        who.password,
        'scan changer second',
        'scan changer third',
        'scan changer fourth',
        app.secret!,
        token,
        ...cookieValues(b),
      ];
    },
  ],
  [
    'invitations: created, re-sent, accepted on the page, declined',
    async (s) => {
      const who = { email: 'scan-invitee@example.com', password: 'scan invitee password' };
      await s.createHuman(who.email, who.password);
      const org = (
        await api(s, '/organizations', { method: 'POST', body: { name: 'Scanned invites', slug: 'scanned-invites' } })
      ).body;
      const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
      const first = (await api(s, `/organizations/${org.id}/invites`, { method: 'POST', body: { email: who.email } }))
        .body;
      const resent = (await api(s, `/organizations/${org.id}/invites/${first.invite.id}/resend`, { method: 'POST' }))
        .body;
      const token = tokenOf(resent.link);
      const b = new TestBrowser();
      const { html: page } = await signInAt(s.issuer, b, `/invites/accept?token=${token}`, who);
      const accepted = await b.request(`${s.issuer}/invites/accept`, {
        form: { token, csrf: field(page, 'csrf')!, decision: 'accept' },
      });
      assert.equal(accepted.status, 200);
      const other = (
        await api(s, `/organizations/${org.id}/invites`, {
          method: 'POST',
          body: { email: 'scan-decliner@example.com' },
        })
      ).body;
      const declined = await fetch(`${s.issuer}/api/v1/invitations/decline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: tokenOf(other.link) }),
      });
      assert.equal(declined.status, 200);
      return [tokenOf(first.link), token, tokenOf(other.link), who.password, ...cookieValues(b)];
    },
  ],
  [
    'choose-your-password link: made, opened, password set',
    async (s) => {
      const { createHumanWithSetupLink } = await import('../../src/identity/password-links/store.ts');
      const made = await createHumanWithSetupLink(s.runtime.db, {
        email: 'scan-linked@example.com',
        name: 'Linked',
        ttlSeconds: 600,
      });
      assert.equal(made.status, 'created');
      const token = (made as { token: string }).token;
      const password = 'scan linked person password';
      const b = new TestBrowser();
      const page = await (await b.request(`${s.issuer}/account/choose-password?token=${token}`)).text();
      const set = await b.request(`${s.issuer}/account/choose-password`, {
        form: { token, csrf: field(page, 'csrf')!, new_password: password, confirm_password: password },
      });
      assert.equal(set.status, 200);
      return [token, password, ...cookieValues(b)];
    },
  ],
];

let server: Server;
before(async () => {
  server = await startServer('idsecretscan', { IDENTITY_ADMIN_TOKEN: ADMIN, IDENTITY_EXTRA_SCOPES: 'reports:read' });
});
after(async () => server?.close());

test('after every credential and invitation flow, no column of the identity database holds a raw secret, token, code or invitation token', async () => {
  const handled: { flow: string; value: string }[] = [];
  for (const [name, flow] of FLOWS) {
    for (const value of await flow(server)) handled.push({ flow: name, value });
  }
  assert.ok(handled.length > 50, `the flows handed back ${handled.length} values`);
  for (const h of handled) assert.ok(h.value.length >= 8, `${h.flow}: a value too short to scan for meaningfully`);

  const columns = await server.runtime.db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')
      ORDER BY 1, 2`,
  );
  const tables = new Set(columns.rows.map((c) => c.table_name));
  for (const expected of [
    'credentials',
    'oauth_tokens',
    'oauth_auth_codes',
    'oauth_app_secrets',
    'invites',
    'password_links',
    'login_sessions',
    'oidc_artifacts',
    'oauth_grants',
  ]) {
    assert.ok(tables.has(expected), `the scan reads ${expected}`);
  }
  let cells = 0;
  const found: string[] = [];
  for (const c of columns.rows) {
    // bytea is compared by its bytes: as hex text, the raw value's hex must not appear either.
    const sql =
      c.data_type === 'bytea'
        ? `SELECT encode("${c.column_name}", 'hex') AS v FROM "${c.table_name}" WHERE "${c.column_name}" IS NOT NULL`
        : `SELECT "${c.column_name}"::text AS v FROM "${c.table_name}" WHERE "${c.column_name}" IS NOT NULL`;
    const rows = (await server.runtime.db.query<{ v: string }>(sql)).rows;
    for (const { v } of rows) {
      cells++;
      for (const h of handled) {
        const needle = c.data_type === 'bytea' ? Buffer.from(h.value).toString('hex') : h.value;
        if (v.includes(needle)) found.push(`${c.table_name}.${c.column_name} holds a raw value from "${h.flow}"`);
      }
    }
  }
  assert.ok(cells > 100, `scanned ${cells} cells`);
  assert.deepEqual([...new Set(found)], []);
});
