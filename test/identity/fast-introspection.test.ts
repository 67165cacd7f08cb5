import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, exportSPKI } from 'jose';
import { startServer, basic, form, type Server } from './support.ts';
import { createAgent } from '../../src/identity/principals/store.ts';
import { createKeypair } from '../../src/identity/credentials/store.ts';
import { createOrganization, addMember, updateMember } from '../../src/identity/organizations/store.ts';

// POST /oauth/introspect has two paths (src/identity/oidc/fast-introspection.ts): the fast route answers the ordinary
// request, and anything else goes to the provider. An extra, unknown form parameter (which the provider ignores) sends a
// request to the provider, so the same question can be asked of both and the answers compared, for every kind of token.

let server: Server;
type Registered = Awaited<ReturnType<Server['registerApp']>>;
let machine: Registered;
let other: Registered;
let resource: Registered;

before(async () => {
  server = await startServer('fast_introspection', { IDENTITY_EXTRA_SCOPES: 'events:write' });
  machine = await server.registerApp({ name: 'Machine', appType: 'machine', allowedScopes: ['events:write'] });
  other = await server.registerApp({ name: 'Other', appType: 'machine', allowedScopes: ['events:write'] });
  resource = await server.registerApp({
    name: 'Resource',
    appType: 'machine',
    allowedScopes: ['events:write'],
    resourceServer: true,
  });
});
after(() => server.close());

const token = async (body: Record<string, string>, headers: Record<string, string> = {}, app: Registered = machine) => {
  const r = await form(`${server.issuer}/oauth/token`, body, {
    authorization: basic(app.clientId, app.secret!),
    ...headers,
  });
  assert.equal(r.status, 200, r.text);
  return r.json as { access_token: string; refresh_token?: string };
};

/** The fast route's answer and the provider's to the same introspection, asserted equal; returns the answer. */
async function both(value: string, caller: Registered = machine, hint: string | undefined = 'access_token') {
  const params: Record<string, string> = { token: value, ...(hint ? { token_type_hint: hint } : {}) };
  const auth = { authorization: basic(caller.clientId, caller.secret!) };
  const fast = await form(`${server.issuer}/oauth/introspect`, params, auth);
  const slow = await form(`${server.issuer}/oauth/introspect`, { ...params, via: 'provider' }, auth);
  assert.equal(fast.status, 200, fast.text);
  assert.equal(slow.status, 200, slow.text);
  assert.deepEqual(fast.json, slow.json, 'the fast route answers as the provider does');
  const headersOf = (h: Headers) =>
    Object.fromEntries(
      [...h].filter(([k]) => !['date', 'content-length', 'x-request-id', 'connection', 'keep-alive'].includes(k)),
    );
  assert.deepEqual(headersOf(fast.headers), headersOf(slow.headers), 'with the same headers');
  assert.equal(fast.headers.get('cache-control'), 'no-store');
  assert.match(fast.headers.get('content-type') ?? '', /^application\/json/);
  return fast.json as Record<string, unknown>;
}

test('client-credentials tokens, plain and DPoP-bound, answer alike by both paths; to their app, a resource server and another app', async () => {
  const plain = (await token({ grant_type: 'client_credentials', scope: 'events:write' })).access_token;
  const shown = await both(plain);
  assert.equal(shown.active, true);
  assert.equal(shown.client_id, machine.clientId);
  assert.equal(shown.sub, machine.principalId);
  assert.equal(shown.token_type, 'Bearer');
  assert.deepEqual(shown.aud, [machine.clientId]);
  assert.equal((await both(plain, resource)).active, true, 'a resource server may read it');
  assert.deepEqual(await both(plain, other), { active: false }, 'another app learns nothing');
  for (const hint of [undefined, 'refresh_token', 'urn:ietf:params:oauth:token-type:access_token', 'nonsense'])
    assert.equal((await both(plain, machine, hint)).active, true, `hint ${hint}`);

  const keys = await generateKeyPair('ES256');
  const dpop = await new SignJWT({ htm: 'POST', htu: `${server.issuer}/oauth/token`, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .setIssuedAt()
    .sign(keys.privateKey);
  const bound = await both(
    (await token({ grant_type: 'client_credentials', scope: 'events:write' }, { dpop })).access_token,
  );
  assert.equal(bound.token_type, 'DPoP');
  assert.equal(typeof (bound.cnf as { jkt?: unknown }).jkt, 'string');
});

test('unknown, malformed and revoked tokens are inactive by both paths; a revocation is seen by the next request', async () => {
  assert.deepEqual(await both('no-such-token'), { active: false });
  assert.deepEqual(await both(randomUUID().replaceAll('-', '')), { active: false });
  const value = (await token({ grant_type: 'client_credentials', scope: 'events:write' })).access_token;
  assert.equal((await both(value)).active, true);
  const revoked = await form(
    `${server.issuer}/oauth/revoke`,
    { token: value },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(revoked.status, 200);
  assert.deepEqual(await both(value), { active: false });
});

test('an organization-scoped token shows org_id, org_role and org_permissions by both paths, and is inactive once the membership ends', async () => {
  const org = await createOrganization(server.runtime.db, { name: 'Fast Org', slug: 'fast-org' });
  await addMember(server.runtime.db, org.id, machine.principalId, 'editor', ['reports:write']);
  const value = (await token({ grant_type: 'client_credentials', scope: 'events:write', organization: 'fast-org' }))
    .access_token;
  const shown = await both(value);
  assert.equal(shown.org_id, org.id);
  assert.equal(shown.org_role, 'editor');
  assert.deepEqual(shown.org_permissions, ['reports:write']);
  await updateMember(server.runtime.db, org.id, machine.principalId, { active: false });
  assert.deepEqual(await both(value), { active: false });
});

test("a delegated token (a person's token exchanged by an agent) shows act and delegation_chain by both paths, and dies with its parent", async () => {
  const rt = server.runtime;
  const personId = await server.createHuman(`fast-${randomUUID()}@example.com`, 'a long enough password 1');
  await rt.db.query('UPDATE principals SET allowed_scopes = $2 WHERE id = $1', [
    personId,
    JSON.stringify(['events:write']),
  ]);
  const web = await server.registerApp({
    name: 'Web',
    appType: 'web',
    redirectUris: ['https://fast.example/cb'],
    allowedScopes: ['events:write'],
  });
  const provider = rt.holder.current;
  const client = await provider.Client.find(web.clientId);
  type Init = ConstructorParameters<typeof provider.AccessToken>[0];
  const personToken = await new provider.AccessToken({
    client: client!,
    accountId: personId,
    scope: 'events:write',
    gty: 'authorization_code',
  } as unknown as Init).save();
  const personShown = await both(personToken, web);
  assert.equal(personShown.sub, personId);
  assert.equal(typeof personShown.username, 'string');

  const pair = await generateKeyPair('ES256');
  const agent = await createAgent(rt.db, {
    name: 'fast-agent',
    modelId: 'm',
    allowedScopes: ['events:write'],
    requiresConfirmation: false,
  });
  await createKeypair(rt.db, agent.id, {
    publicKey: await exportSPKI(pair.publicKey),
    algorithm: 'ES256',
    keyId: 'fast-agent-key',
  });
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'fast-agent-key' })
    .setIssuer(agent.id)
    .setSubject(agent.id)
    .setAudience(server.issuer)
    .setExpirationTime('2m')
    .setJti(randomUUID())
    .sign(pair.privateKey);
  const agentToken = (
    await token({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, scope: 'events:write' })
  ).access_token;
  assert.equal((await both(agentToken)).sub, agent.id);
  const delegated = (
    await token({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: personToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: agentToken,
      actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      scope: 'events:write',
    })
  ).access_token;
  const shown = await both(delegated);
  assert.equal(shown.sub, personId);
  assert.deepEqual(shown.act, { sub: agent.id });
  assert.deepEqual(shown.delegation_chain, [personId, agent.id]);
  const revoked = await form(
    `${server.issuer}/oauth/revoke`,
    { token: personToken },
    { authorization: basic(web.clientId, web.secret!) },
  );
  assert.equal(revoked.status, 200);
  assert.deepEqual(await both(delegated), { active: false }, 'the parent revoked, the delegated token is inactive');
});

test('requests the fast route does not take still get the provider answer: no credentials, a wrong secret, a JWT, duplicates', async () => {
  const value = (await token({ grant_type: 'client_credentials', scope: 'events:write' })).access_token;
  const url = `${server.issuer}/oauth/introspect`;
  const none = await form(url, { token: value });
  assert.equal(none.status, 401);
  assert.equal(none.json.error, 'invalid_client');
  const wrong = await form(url, { token: value }, { authorization: basic(machine.clientId, 'wrong') });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.error, 'invalid_client');
  const jwt = await form(
    url,
    { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.deepEqual([jwt.status, jwt.json], [200, { active: false }]);
  const dupes = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(machine.clientId, machine.secret!),
    },
    body: `token=${value}&token=${value}`,
  });
  assert.equal(dupes.status, 400);
  assert.equal(((await dupes.json()) as { error: string }).error, 'invalid_request');
  const empty = await form(url, {}, { authorization: basic(machine.clientId, machine.secret!) });
  assert.equal(empty.status, 400);
});

test("a deactivated app's tokens and a deactivated principal's are inactive by both paths; a deactivated caller gets the provider's invalid_client", async () => {
  const setApp = async (clientId: string, active: boolean) => {
    await server.runtime.db.query('UPDATE oauth_apps SET active = $2 WHERE client_id = $1', [clientId, active]);
    server.runtime.clients.invalidate(clientId);
  };
  const batch = await server.registerApp({ name: 'Batch', appType: 'machine', allowedScopes: ['events:write'] });
  const value = (await token({ grant_type: 'client_credentials', scope: 'events:write' }, {}, batch)).access_token;
  assert.equal((await both(value, resource)).active, true);
  await setApp(batch.clientId, false);
  assert.deepEqual(await both(value, resource), { active: false }, "the token's app deactivated");
  const asked = await form(
    `${server.issuer}/oauth/introspect`,
    { token: value },
    { authorization: basic(batch.clientId, batch.secret!) },
  );
  assert.equal(asked.status, 401);
  assert.equal(asked.json.error, 'invalid_client', 'a deactivated app cannot authenticate');
  await setApp(batch.clientId, true);
  assert.equal((await both(value, resource)).active, true, 'reactivated');

  const personId = await server.createHuman(`inactive-${randomUUID()}@example.com`, 'a long enough password 2');
  const web = await server.registerApp({
    name: 'Web 2',
    appType: 'web',
    redirectUris: ['https://fast.example/cb2'],
    allowedScopes: ['openid'],
  });
  const provider = server.runtime.holder.current;
  type Init = ConstructorParameters<typeof provider.AccessToken>[0];
  const personToken = await new provider.AccessToken({
    client: (await provider.Client.find(web.clientId))!,
    accountId: personId,
    scope: 'openid',
    gty: 'authorization_code',
  } as unknown as Init).save();
  assert.equal((await both(personToken, web)).active, true);
  await server.runtime.db.query('UPDATE principals SET active = false WHERE id = $1', [personId]);
  server.runtime.accounts.invalidate(personId);
  assert.deepEqual(await both(personToken, web), { active: false }, 'the person deactivated');
});
