import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

// Deactivation has no management route yet: the tests flip the flag in the table, as a later route
// or an operator would, and drop this process's caches as such a route does.
let server: Server;
const admin = { email: 'ada@example.com', password: 'ada has a long password' };
let adminId: string;
let resourceServer: { clientId: string; secret: string | undefined };

before(async () => {
  server = await startServer('idinactive');
  adminId = await server.createHuman(admin.email, admin.password, true);
  resourceServer = await server.registerApp({
    name: 'Resource server',
    appType: 'machine',
    allowedScopes: [],
    resourceServer: true,
  });
});
after(async () => server?.close());

async function userTokens(allowedScopes = ['openid', 'email', 'admin']) {
  const web = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes,
  });
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
    scope: allowedScopes.join(' '),
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, admin);
  return { web, tokens: await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }) };
}

async function setAppActive(clientId: string, active: boolean) {
  await server.runtime.db.query('UPDATE oauth_apps SET active = $2 WHERE client_id = $1', [clientId, active]);
  server.runtime.clients.invalidate(clientId);
}

async function setPrincipalActive(id: string, active: boolean) {
  await server.runtime.db.query('UPDATE principals SET active = $2 WHERE id = $1', [id, active]);
  server.runtime.accounts.invalidate(id);
}

const introspect = (token: string, by = resourceServer) =>
  form(`${server.issuer}/oauth/introspect`, { token }, { authorization: basic(by.clientId, by.secret!) });

test("a deactivated app's tokens are inactive at introspection (another client asking gets no 500)", async () => {
  const { web, tokens } = await userTokens();
  const machine = await server.registerApp({ name: 'Batch', appType: 'machine', allowedScopes: [] });
  const cc = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(machine.clientId, machine.secret!) },
    )
  ).json.access_token;
  assert.equal((await introspect(tokens.access_token)).json.active, true);
  assert.equal((await introspect(cc)).json.active, true);

  await setAppActive(web.clientId, false);
  await setAppActive(machine.clientId, false);
  for (const token of [tokens.access_token, tokens.refresh_token!, cc]) {
    const r = await introspect(token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { active: false });
  }
  await setAppActive(web.clientId, true);
  assert.equal(
    (await introspect(tokens.access_token)).json.active,
    true,
    'reactivating the app brings its unexpired tokens back',
  );
});

test("a deactivated principal's tokens are inactive at introspection and refused by the management API", async () => {
  const { web, tokens } = await userTokens();
  const api = () =>
    fetch(`${server.issuer}/api/v1/principals`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal((await api()).status, 200);
  await setPrincipalActive(adminId, false);
  try {
    assert.deepEqual((await introspect(tokens.access_token)).json, { active: false });
    assert.deepEqual((await introspect(tokens.refresh_token!, web)).json, { active: false });
    assert.equal((await api()).status, 401, "a deactivated principal's token is no longer live, like at introspection");
  } finally {
    await setPrincipalActive(adminId, true);
  }
});

test("the management API refuses an admin's token issued to an app that has since been deactivated", async () => {
  const { web, tokens } = await userTokens();
  const api = () =>
    fetch(`${server.issuer}/api/v1/principals`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal((await api()).status, 200);
  await setAppActive(web.clientId, false);
  const refused = await api();
  assert.equal(refused.status, 401);
  assert.equal(((await refused.json()) as any).error.code, 'UNAUTHORIZED');
});

test("a third-party app cannot learn another app's user through introspection; a resource server can", async () => {
  const { web, tokens } = await userTokens(['openid', 'email']);
  const thirdParty = await server.registerApp({ name: 'Curious', appType: 'machine', allowedScopes: [] });
  for (const token of [tokens.access_token, tokens.refresh_token!]) {
    const r = await introspect(token, thirdParty);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { active: false });
    assert.ok(!r.text.includes(admin.email));
  }
  const own = await introspect(tokens.access_token, web);
  assert.equal(own.json.username, admin.email);
  const byResourceServer = await introspect(tokens.access_token);
  assert.equal(byResourceServer.json.active, true);
  assert.equal(byResourceServer.json.username, admin.email);
  assert.equal(byResourceServer.json.sub, adminId);
});
