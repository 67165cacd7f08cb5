import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const API_KEY = 'urn:platform:params:oauth:token-type:api-key';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let server: Server;
let adminToken: string;
let resourceServer: { clientId: string; secret: string | undefined };
let web: { clientId: string; secret: string | undefined };
let config: oidc.Configuration;
let orgId: string;
let otherOrgId: string;
const admin = { email: 'org-admin@example.com', password: 'a long admin passphrase' };
const ada = { email: 'ada@example.com', password: 'ada picked a long password' };
let adaId: string;

const api = managementApi(
  () => server.issuer,
  () => adminToken,
);
const introspect = (t: string) =>
  form(
    `${server.issuer}/oauth/introspect`,
    { token: t },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  );
const tokenAs = (app: { clientId: string; secret: string | undefined }, body: Record<string, string>) =>
  form(`${server.issuer}/oauth/token`, body, { authorization: basic(app.clientId, app.secret!) });

/** Signs Ada in through the pages with extra authorization parameters; returns the callback's parameters and the code's tokens. */
async function authorize(params: Record<string, string>, browser = new TestBrowser()) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  });
  const { callback } = await authorizeInBrowser(server.issuer, browser, url.href, ada);
  const query = new URL(callback).searchParams;
  if (query.get('error')) return { error: query.get('error'), description: query.get('error_description') };
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier });
  return { tokens };
}

before(async () => {
  server = await startServer('idorgtok', { IDENTITY_EXTRA_SCOPES: 'reports:read' });
  await server.createHuman(admin.email, admin.password, true);
  adaId = await server.createHuman(ada.email, ada.password);
  const console_ = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'admin'],
  });
  const cc = await oidc.discovery(
    new URL(server.issuer),
    console_.clientId,
    console_.secret,
    oidc.ClientSecretBasic(console_.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(cc, {
    redirect_uri: CALLBACK,
    scope: 'openid admin',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, admin);
  adminToken = (await oidc.authorizationCodeGrant(cc, new URL(callback), { pkceCodeVerifier: verifier })).access_token;

  resourceServer = await server.registerApp({
    name: 'Reports API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  web = await server.registerApp({
    name: 'Team app',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'profile'],
  });
  config = await oidc.discovery(new URL(server.issuer), web.clientId, web.secret, oidc.ClientSecretBasic(web.secret!), {
    execute: [oidc.allowInsecureRequests],
  });
  orgId = (await api('/organizations', { method: 'POST', body: { name: 'Analytical Engines', slug: 'engines' } })).body
    .id;
  otherOrgId = (
    await api('/organizations', { method: 'POST', body: { name: 'Difference Engines', slug: 'difference' } })
  ).body.id;
  const added = await api(`/organizations/${orgId}/members`, {
    method: 'POST',
    body: { principal_id: adaId, role: 'editor', permissions: ['reports:write'] },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
});
after(async () => server?.close());

test('an authorization request naming an organization yields tokens bound to it: org_id, role and permissions at introspection, userinfo and the ID token', async () => {
  const { tokens } = await authorize({ organization: 'engines' });
  assert.ok(tokens);
  assert.equal(tokens.claims()!.org_id, orgId, 'the ID token names the organization');
  const at = await introspect(tokens.access_token);
  assert.equal(at.json.active, true);
  assert.equal(at.json.sub, adaId);
  assert.equal(at.json.org_id, orgId);
  assert.equal(at.json.org_role, 'editor');
  assert.deepEqual(at.json.org_permissions, ['reports:write']);
  const rt = await introspect(tokens.refresh_token!);
  assert.equal(rt.json.active, true);
  assert.equal(rt.json.org_id, orgId, 'the refresh token is bound too');

  const info = await fetch(`${server.issuer}/oauth/userinfo`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  const claims = (await info.json()) as any;
  assert.equal(info.status, 200, JSON.stringify(claims));
  assert.equal(claims.org_id, orgId);
  assert.equal(claims.org_role, 'editor');

  // Refreshing keeps the binding; the role shown is the membership's as it is now.
  await api(`/organizations/${orgId}/members/${adaId}`, { method: 'PATCH', body: { role: 'owner' } });
  const refreshed = await tokenAs(web, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
  assert.equal(refreshed.status, 200, refreshed.text);
  const again = await introspect(refreshed.json.access_token);
  assert.equal(again.json.org_id, orgId);
  assert.equal(again.json.org_role, 'owner');
  assert.equal(
    (await introspect(refreshed.json.refresh_token)).json.org_id,
    orgId,
    'the rotated refresh token keeps the organization',
  );
  const other = await tokenAs(web, {
    grant_type: 'refresh_token',
    refresh_token: refreshed.json.refresh_token,
    organization: 'difference',
  });
  assert.equal(other.status, 400);
  assert.equal(other.json.error, 'invalid_grant', 'a bound grant cannot be turned to another organization');
  await api(`/organizations/${orgId}/members/${adaId}`, { method: 'PATCH', body: { role: 'editor' } });

  const plain = await authorize({});
  const unscoped = await introspect(plain.tokens!.access_token);
  assert.equal(unscoped.json.active, true);
  assert.equal(unscoped.json.org_id, undefined, 'a token asked without an organization carries none');
  assert.equal(plain.tokens!.claims()!.org_id, undefined);
});

test('an authorization request for an organization the person does not belong to is refused with access_denied; a malformed one with invalid_request', async () => {
  const refused = await authorize({ organization: 'difference' });
  assert.equal(refused.error, 'access_denied');
  assert.match(refused.description!, /not an active member/);
  const unknown = await authorize({ organization: randomUUID() });
  assert.equal(unknown.error, 'access_denied', 'an unknown organization looks like one the person is not in');
  const malformed = await authorize({ organization: 'Not A Slug!' });
  assert.equal(malformed.error, 'invalid_request');
  const byId = await authorize({ organization: orgId });
  assert.equal((await introspect(byId.tokens!.access_token)).json.org_id, orgId, 'the id works as well as the slug');
});

test('a refresh token obtains organization tokens at the token endpoint; a refused organization does not spend the refresh token', async () => {
  const { tokens } = await authorize({});
  const scoped = await tokenAs(web, {
    grant_type: 'refresh_token',
    refresh_token: tokens!.refresh_token!,
    organization: 'engines',
  });
  assert.equal(scoped.status, 200, scoped.text);
  assert.equal((await introspect(scoped.json.access_token)).json.org_id, orgId);
  assert.equal((await introspect(scoped.json.refresh_token)).json.org_id, undefined, 'the grant itself stays unbound');

  const refused = await tokenAs(web, {
    grant_type: 'refresh_token',
    refresh_token: scoped.json.refresh_token,
    organization: 'difference',
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error, 'invalid_grant');
  const bad = await tokenAs(web, {
    grant_type: 'refresh_token',
    refresh_token: scoped.json.refresh_token,
    organization: '../etc',
  });
  assert.equal(bad.json.error, 'invalid_request');
  const twice = await fetch(`${server.issuer}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic(web.clientId, web.secret!), 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=refresh_token&refresh_token=${scoped.json.refresh_token}&organization=engines&organization=difference`,
  });
  assert.equal(twice.status, 400);
  assert.equal(((await twice.json()) as any).error, 'invalid_request', 'the parameter is given once');
  const still = await tokenAs(web, { grant_type: 'refresh_token', refresh_token: scoped.json.refresh_token });
  assert.equal(still.status, 200, `the refused requests did not rotate the refresh token away: ${still.text}`);
});

test('the code exchange may name the organization too; a code bound to one organization cannot be exchanged for another', async () => {
  const exchange = async (authParams: Record<string, string>, tokenParams: Record<string, string>) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...authParams,
    });
    const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, ada);
    const code = new URL(callback).searchParams.get('code')!;
    return tokenAs(web, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
      ...tokenParams,
    });
  };
  const scoped = await exchange({}, { organization: 'engines' });
  assert.equal(scoped.status, 200, scoped.text);
  assert.equal((await introspect(scoped.json.access_token)).json.org_id, orgId);
  assert.equal(
    (await introspect(scoped.json.refresh_token)).json.org_id,
    undefined,
    'only that access token is scoped',
  );
  const notMember = await exchange({}, { organization: 'difference' });
  assert.equal(notMember.status, 400);
  assert.equal(notMember.json.error, 'invalid_grant');
  const crossed = await exchange({ organization: 'engines' }, { organization: 'difference' });
  assert.equal(crossed.json.error, 'invalid_grant');
  const same = await exchange({ organization: 'engines' }, { organization: orgId });
  assert.equal(same.status, 200, 'naming the bound organization again (by id) is fine');
});

test('client credentials, API keys and key pairs obtain organization tokens for principals that are members', async () => {
  const machine = await server.registerApp({ name: 'Worker', appType: 'machine', allowedScopes: ['reports:read'] });
  assert.equal(
    (
      await api(`/organizations/${orgId}/members`, {
        method: 'POST',
        body: { principal_id: machine.principalId, role: 'robot' },
      })
    ).status,
    201,
  );
  const cc = await tokenAs(machine, {
    grant_type: 'client_credentials',
    scope: 'reports:read',
    organization: 'engines',
  });
  assert.equal(cc.status, 200, cc.text);
  const ccIntro = await introspect(cc.json.access_token);
  assert.equal(ccIntro.json.org_id, orgId);
  assert.equal(ccIntro.json.org_role, 'robot');
  assert.deepEqual(ccIntro.json.org_permissions, []);
  const ccRefused = await tokenAs(machine, {
    grant_type: 'client_credentials',
    scope: 'reports:read',
    organization: 'difference',
  });
  assert.equal(ccRefused.status, 400);
  assert.equal(ccRefused.json.error, 'invalid_grant');
  assert.equal(
    (await tokenAs(machine, { grant_type: 'client_credentials', organization: 'x'.repeat(100) })).json.error,
    'invalid_request',
  );

  const svc = (
    await api('/principals', {
      method: 'POST',
      body: { type: 'service', name: 'org-exporter', service_type: 'worker', allowed_scopes: ['reports:read'] },
    })
  ).body;
  await api(`/organizations/${otherOrgId}/members`, {
    method: 'POST',
    body: { principal_id: svc.id, role: 'exporter', permissions: ['export'] },
  });
  const key = (await api(`/principals/${svc.id}/credentials`, { method: 'POST', body: { type: 'api_key' } })).body
    .api_key as string;
  const exchanged = await tokenAs(machine, {
    grant_type: EXCHANGE,
    subject_token: key,
    subject_token_type: API_KEY,
    organization: 'difference',
  });
  assert.equal(exchanged.status, 200, exchanged.text);
  const exIntro = await introspect(exchanged.json.access_token);
  assert.equal(exIntro.json.sub, svc.id);
  assert.equal(exIntro.json.org_id, otherOrgId);
  assert.deepEqual(exIntro.json.org_permissions, ['export']);
  assert.equal(
    (
      await tokenAs(machine, {
        grant_type: EXCHANGE,
        subject_token: key,
        subject_token_type: API_KEY,
        organization: 'engines',
      })
    ).json.error,
    'invalid_grant',
  );

  const pair = await generateKeyPair('ES256', { extractable: true });
  await api(`/principals/${svc.id}/credentials`, {
    method: 'POST',
    body: {
      type: 'keypair',
      public_key: await exportSPKI(pair.publicKey),
      key_algorithm: 'ES256',
      key_id: 'org-exporter-key',
    },
  });
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'org-exporter-key' })
    .setIssuer(svc.id)
    .setSubject(svc.id)
    .setAudience(server.issuer)
    .setIssuedAt()
    .setExpirationTime('60s')
    .setJti(randomUUID())
    .sign(pair.privateKey);
  const wrongOrg = await tokenAs(machine, { grant_type: JWT_BEARER, assertion: jwt, organization: 'engines' });
  assert.equal(wrongOrg.json.error, 'invalid_grant');
  const signed = await tokenAs(machine, { grant_type: JWT_BEARER, assertion: jwt, organization: 'difference' });
  assert.equal(signed.status, 200, `a refused organization did not spend the assertion's jti: ${signed.text}`);
  assert.equal((await introspect(signed.json.access_token)).json.org_id, otherOrgId);
  assert.equal(
    (await tokenAs(machine, { grant_type: JWT_BEARER, assertion: jwt, organization: 'difference' })).json.error,
    'invalid_grant',
    'the jti is spent now',
  );
});

test("a removed member's organization tokens stop at once (introspection, userinfo, refresh); other tokens live on; a deactivated organization's too", async () => {
  const { tokens } = await authorize({ organization: 'engines' });
  const plain = (await authorize({})).tokens!;
  assert.equal((await introspect(tokens!.access_token)).json.active, true);
  const removed = await api(`/organizations/${orgId}/members/${adaId}`, { method: 'DELETE' });
  assert.equal(removed.status, 200);
  assert.deepEqual((await introspect(tokens!.access_token)).json, { active: false });
  assert.deepEqual((await introspect(tokens!.refresh_token!)).json, { active: false });
  const info = await fetch(`${server.issuer}/oauth/userinfo`, {
    headers: { authorization: `Bearer ${tokens!.access_token}` },
  });
  assert.equal(info.status, 401);
  const refresh = await tokenAs(web, { grant_type: 'refresh_token', refresh_token: tokens!.refresh_token! });
  assert.equal(refresh.json.error, 'invalid_grant');
  assert.equal(
    (await introspect(plain.access_token)).json.active,
    true,
    'tokens not scoped to the organization are untouched',
  );
  assert.equal((await authorize({ organization: 'engines' })).error, 'access_denied', 'and no new ones');

  assert.equal(
    (await api(`/organizations/${orgId}/members/${adaId}`, { method: 'PATCH', body: { active: true } })).status,
    200,
  );
  const back = (await authorize({ organization: 'engines' })).tokens!;
  assert.equal((await introspect(back.access_token)).json.active, true);
  assert.equal((await api(`/organizations/${orgId}`, { method: 'PATCH', body: { active: false } })).status, 200);
  assert.deepEqual(
    (await introspect(back.access_token)).json,
    { active: false },
    "a deactivated organization's tokens stop too",
  );
  await api(`/organizations/${orgId}`, { method: 'PATCH', body: { active: true } });
  assert.equal((await introspect(back.access_token)).json.active, true);
});
