import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { startServer, basic, form, type Server } from './support.ts';
import { createOrganization, addMember } from '../../src/identity/organizations/store.ts';
import { assertHandedOver, assertIssuedAlike, assertStoredAlike, tokenPaths } from './fast-paths.ts';

// POST /oauth/token has two paths for the client-credentials grant (src/identity/oidc/fast-client-credentials.ts): the fast
// route issues the ordinary request through the provider's own model, anything else goes to the provider. fast-paths.ts makes
// the same request of both and tells which path answered.

let server: Server;
type Registered = Awaited<ReturnType<Server['registerApp']>>;
let machine: Registered;
let paths: ReturnType<typeof tokenPaths>;

before(async () => {
  server = await startServer('fast_client_credentials', { IDENTITY_EXTRA_SCOPES: 'events:write,reports:read' });
  machine = await server.registerApp({
    name: 'Machine',
    appType: 'machine',
    allowedScopes: ['events:write', 'reports:read'],
    accessTokenTtl: 1234,
  });
  paths = tokenPaths(server);
});
after(() => server.close());

const tokenUrl = () => paths.tokenUrl;
const both = (params: Record<string, string>, headers: Record<string, string>) => paths.both(params, headers);

test('the ordinary request is issued by the fast route, answered, stored and introspected as the provider does it', async () => {
  const auth = { authorization: basic(machine.clientId, machine.secret!), 'user-agent': 'fast-cc-test/1' };
  for (const scope of ['events:write', 'reports:read events:write', undefined]) {
    const params: Record<string, string> = { grant_type: 'client_credentials', ...(scope ? { scope } : {}) };
    const { fastToken, slowToken, rest: fastRest } = assertIssuedAlike(await both(params, auth));
    assert.equal(fastRest.expires_in, 1234, "the app's own token lifetime");
    assert.equal(fastRest.scope, scope, 'the scope as requested');

    const a = await assertStoredAlike(server, fastToken, slowToken);
    assert.equal(a.user_agent, 'fast-cc-test/1');
    assert.equal(a.client_ip, '127.0.0.1');
    assert.equal(a.principal_id, machine.principalId);

    const introspect = (value: string) =>
      form(
        `${server.issuer}/oauth/introspect`,
        { token: value },
        { authorization: basic(machine.clientId, machine.secret!) },
      );
    const [fi, si] = [(await introspect(fastToken)).json, (await introspect(slowToken)).json];
    for (const x of [fi, si]) {
      assert.equal(x.active, true);
      delete x.iat;
      delete x.exp;
    }
    assert.deepEqual(fi, si, 'introspected alike');
  }
});

test('every request the fast route does not take gets the provider answer', async () => {
  const other = await server.registerApp({
    name: 'No CC',
    appType: 'web',
    redirectUris: ['https://no-cc.example/cb'],
    allowedScopes: ['events:write'],
  });
  const bound = await server.registerApp({
    name: 'DPoP only',
    appType: 'machine',
    allowedScopes: ['events:write'],
    dpopBoundAccessTokens: true,
  });
  const narrow = await server.registerApp({ name: 'Narrow', appType: 'machine', allowedScopes: ['events:write'] });
  const good = { authorization: basic(machine.clientId, machine.secret!) };
  const cases: [string, Record<string, string>, Record<string, string>, number, string][] = [
    [
      'a wrong secret',
      { grant_type: 'client_credentials' },
      { authorization: basic(machine.clientId, 'wrong') },
      401,
      'invalid_client',
    ],
    ['no credentials', { grant_type: 'client_credentials' }, {}, 400, 'invalid_request'],
    ['an unknown scope', { grant_type: 'client_credentials', scope: 'nope' }, good, 400, 'invalid_scope'],
    [
      'a scope the app is not allowed',
      { grant_type: 'client_credentials', scope: 'reports:read' },
      { authorization: basic(narrow.clientId, narrow.secret!) },
      400,
      'invalid_scope',
    ],
    [
      'an app without the grant',
      { grant_type: 'client_credentials' },
      { authorization: basic(other.clientId, other.secret!) },
      400,
      'unauthorized_client',
    ],
    [
      'a DPoP-bound app without a proof',
      { grant_type: 'client_credentials' },
      { authorization: basic(bound.clientId, bound.secret!) },
      400,
      'invalid_grant',
    ],
    [
      'an organization the app is not a member of',
      { grant_type: 'client_credentials', organization: 'no-such-org' },
      good,
      400,
      'invalid_grant',
    ],
    ['no grant_type', { scope: 'events:write' }, good, 400, 'invalid_request'],
  ];
  for (const [what, params, headers, status, error] of cases) {
    assertHandedOver(what, await both(params, headers), status, error);
  }
  const dupes = await fetch(tokenUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...good },
    body: 'grant_type=client_credentials&scope=events:write&scope=events:write',
  });
  assert.equal(dupes.status, 400);
  assert.equal(((await dupes.json()) as { error: string }).error, 'invalid_request');
  const json = await fetch(tokenUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...good },
    body: JSON.stringify({ grant_type: 'client_credentials' }),
  });
  assert.equal(json.status, 400, "a JSON body is the provider's to refuse");
});

test('an organization, a DPoP proof or a browser Origin are answered by the provider', async () => {
  const org = await createOrganization(server.runtime.db, { name: 'Fast CC Org', slug: 'fast-cc-org' });
  await addMember(server.runtime.db, org.id, machine.principalId, 'viewer', []);
  const good = { authorization: basic(machine.clientId, machine.secret!) };
  let before = paths.providerGrants();
  const scoped = await form(tokenUrl(), { grant_type: 'client_credentials', organization: 'fast-cc-org' }, good);
  assert.equal(scoped.status, 200, scoped.text);
  assert.equal(paths.providerGrants(), before + 1, 'issued by the provider');
  const shown = await form(`${server.issuer}/oauth/introspect`, { token: scoped.json.access_token }, good);
  assert.equal(shown.json.org_id, org.id);

  const keys = await generateKeyPair('ES256');
  const proof = await new SignJWT({ htm: 'POST', htu: tokenUrl(), jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .setIssuedAt()
    .sign(keys.privateKey);
  before = paths.providerGrants();
  const dpop = await form(tokenUrl(), { grant_type: 'client_credentials' }, { ...good, dpop: proof });
  assert.equal(dpop.status, 200, dpop.text);
  assert.equal(dpop.json.token_type, 'DPoP');
  assert.equal(paths.providerGrants(), before + 1, 'issued by the provider');

  before = paths.providerGrants();
  const browser = await form(
    tokenUrl(),
    { grant_type: 'client_credentials' },
    { ...good, origin: 'https://app.example' },
  );
  assert.equal(paths.providerGrants(), before + 1, 'answered by the provider');
  // The provider's CORS policy decides per client (clientBasedCORS), and no client is allowed a browser origin here.
  assert.deepEqual([browser.status, browser.json.error], [400, 'invalid_request']);
});

test('a token issued by the fast route is counted, revocable, and refused once its app is deactivated', async () => {
  const metric = async () =>
    Number(
      /^identity_token_requests_total\{grant_type="client_credentials",outcome="success"\} (\d+)$/m.exec(
        await (await fetch(`${server.issuer}/metrics`)).text(),
      )?.[1] ?? 0,
    );
  const app = await server.registerApp({ name: 'Counted', appType: 'machine', allowedScopes: ['events:write'] });
  const auth = { authorization: basic(app.clientId, app.secret!) };
  const counted = await metric();
  const before = paths.providerGrants();
  const issued = await form(tokenUrl(), { grant_type: 'client_credentials', scope: 'events:write' }, auth);
  assert.equal(issued.status, 200);
  assert.equal(paths.providerGrants(), before, 'the fast route answered');
  assert.equal(await metric(), counted + 1, 'identity_token_requests_total counts it');
  const value = issued.json.access_token as string;
  const introspect = () => form(`${server.issuer}/oauth/introspect`, { token: value }, auth);
  assert.equal((await introspect()).json.active, true);
  assert.equal((await form(`${server.issuer}/oauth/revoke`, { token: value }, auth)).status, 200);
  assert.deepEqual((await introspect()).json, { active: false }, 'revoked');

  const second = await form(tokenUrl(), { grant_type: 'client_credentials' }, auth);
  assert.equal(second.status, 200);
  await server.runtime.db.query('UPDATE oauth_apps SET active = false WHERE id = $1', [app.id]);
  server.runtime.clients.invalidate(app.clientId);
  const refused = await form(tokenUrl(), { grant_type: 'client_credentials' }, auth);
  assert.equal(refused.status, 401, refused.text);
  assert.equal(refused.json.error, 'invalid_client');
  const other = await form(
    `${server.issuer}/oauth/introspect`,
    { token: second.json.access_token },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.deepEqual(other.json, { active: false }, "a deactivated app's token is inactive");
});

test("a change to the app is seen by the next token: its lifetime and its scopes (the provider's Client is made again)", async () => {
  const app = await server.registerApp({
    name: 'Changing',
    appType: 'machine',
    allowedScopes: ['events:write', 'reports:read'],
    accessTokenTtl: 1000,
  });
  const auth = { authorization: basic(app.clientId, app.secret!) };
  const first = await form(tokenUrl(), { grant_type: 'client_credentials', scope: 'reports:read' }, auth);
  assert.deepEqual([first.status, first.json.expires_in, first.json.scope], [200, 1000, 'reports:read']);
  await server.runtime.db.query(
    `UPDATE oauth_apps SET access_token_ttl = 777, allowed_scopes = '["events:write"]' WHERE id = $1`,
    [app.id],
  );
  server.runtime.clients.invalidate(app.clientId);
  const second = await form(tokenUrl(), { grant_type: 'client_credentials', scope: 'events:write' }, auth);
  assert.deepEqual([second.status, second.json.expires_in], [200, 777], 'the new lifetime at once');
  const refused = await form(tokenUrl(), { grant_type: 'client_credentials', scope: 'reports:read' }, auth);
  assert.deepEqual([refused.status, refused.json.error], [400, 'invalid_scope'], 'a scope no longer allowed');
  const viaProvider = await form(
    tokenUrl(),
    { grant_type: 'client_credentials', scope: 'events:write', via: 'provider' },
    auth,
  );
  assert.equal(viaProvider.json.expires_in, 777, 'the provider path sees the change too');
});
