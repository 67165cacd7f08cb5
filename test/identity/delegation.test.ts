import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, calculateJwkThumbprint, type CryptoKey } from 'jose';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const ADMIN_TOKEN = 'delegation-admin-token-0123456789abcdef';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: Server;
let as: oauth.AuthorizationServer;
let runtime: { clientId: string; secret: string | undefined };
let notes: { clientId: string; secret: string | undefined };
let briefNotes: { clientId: string; secret: string | undefined };
let resourceServer: { clientId: string; secret: string | undefined };
const pat = { email: 'pat@example.com', password: 'pat has a long passphrase' };
let patId: string;

interface Agent {
  id: string;
  kid: string;
  privateKey: CryptoKey;
}

function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (r.status === 204 ? undefined : await r.json()) as any }));
}

/** An agent principal with an ES256 key pair registered as its credential. */
async function agent(name: string, body: Record<string, unknown>): Promise<Agent> {
  const made = await api('/principals', {
    method: 'POST',
    body: { type: 'agent', name, model_id: 'acme-llm-4', version: '2026-10', ...body },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const kid = `${name}-key`;
  const cred = await api(`/principals/${made.body.id}/credentials`, {
    method: 'POST',
    body: { type: 'keypair', public_key: await exportSPKI(publicKey), key_algorithm: 'ES256', key_id: kid },
  });
  assert.equal(cred.status, 201, JSON.stringify(cred.body));
  return { id: made.body.id, kid, privateKey };
}

/** The agent's proof: an assertion signed with its key (private_key_jwt style), single use. */
function assertion(a: Agent, claims: { aud?: string; exp?: string | number } = {}): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: a.kid })
    .setIssuer(a.id)
    .setSubject(a.id)
    .setAudience(claims.aud ?? server.issuer)
    .setExpirationTime(claims.exp ?? '2m')
    .setJti(randomUUID())
    .sign(a.privateKey);
}

/** A token exchange through oauth4webapi by the agent runtime app; errors come back as oauth4webapi's ResponseBodyError. */
async function exchange(
  subject: string,
  actor: Agent | string,
  extra: Record<string, string> = {},
  options: { DPoP?: oauth.DPoPHandle } = {},
) {
  const client: oauth.Client = { client_id: runtime.clientId };
  // An agent proves itself by a fresh assertion, or (a string) by its own access token.
  const actorToken =
    typeof actor === 'string'
      ? { actor_token: actor, actor_token_type: ACCESS }
      : { actor_token: await assertion(actor), actor_token_type: JWT };
  const res = await oauth.genericTokenEndpointRequest(
    as,
    client,
    oauth.ClientSecretBasic(runtime.secret!),
    EXCHANGE,
    {
      subject_token: subject,
      subject_token_type: ACCESS,
      ...actorToken,
      ...extra,
    },
    { ...insecure, ...options },
  );
  return oauth.processGenericTokenEndpointResponse(as, client, res);
}

async function refused(p: Promise<unknown>): Promise<{ error: string; error_description?: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return { error: err.error, error_description: err.error_description };
    throw err;
  }
  assert.fail('the exchange was expected to be refused');
}

const raw = (body: Record<string, string>) =>
  form(`${server.issuer}/oauth/token`, body, { authorization: basic(runtime.clientId, runtime.secret!) });
const introspect = (t: string) =>
  form(
    `${server.issuer}/oauth/introspect`,
    { token: t },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  ).then((r) => r.json);

/** Pat's access token through the authorization code flow of a first-party app (bound to a key with `DPoP`, scoped to an organization with `organization`). */
async function patToken(
  app = notes,
  scope = 'notes:read notes:write mail:send',
  options: { DPoP?: oauth.DPoPHandle; organization?: string } = {},
): Promise<string> {
  const client: oauth.Client = { client_id: app.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(options.organization ? { organization: options.organization } : {}),
  }).toString();
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, pat);
  const params = oauth.validateAuthResponse(as, client, new URL(callback), oauth.expectNoState);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(app.secret!),
    params,
    CALLBACK,
    verifier,
    { ...insecure, ...(options.DPoP ? { DPoP: options.DPoP } : {}) },
  );
  return (await oauth.processAuthorizationCodeResponse(as, client, res)).access_token;
}

let planner: Agent;
let summarizer: Agent;
let archivist: Agent;

before(async () => {
  server = await startServer('iddeleg', {
    IDENTITY_EXTRA_SCOPES: 'notes:read,notes:write,mail:send',
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_DELEGATION_MAX_DEPTH: '2',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  patId = await server.createHuman(pat.email, pat.password);
  const patched = await api(`/principals/${patId}`, {
    method: 'PATCH',
    body: { allowed_scopes: ['openid', 'profile', 'email', 'notes:read', 'notes:write', 'mail:send'] },
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const scopes = ['notes:read', 'notes:write', 'mail:send'];
  notes = await server.registerApp({
    name: 'Notes',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: scopes,
  });
  briefNotes = await server.registerApp({
    name: 'Brief notes',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: scopes,
    accessTokenTtl: 120,
  });
  runtime = await server.registerApp({ name: 'Agent runtime', appType: 'machine', allowedScopes: scopes });
  resourceServer = await server.registerApp({
    name: 'Notes API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  planner = await agent('planner', {
    allowed_scopes: ['notes:read', 'notes:write'],
    capability_constraints: { scopes: ['notes:read', 'notes:write'], can_delegate: true },
    resource_constraints: { audiences: ['https://notes.example', 'https://files.example'] },
    max_token_lifetime: 600,
    requires_confirmation: false,
  });
  summarizer = await agent('summarizer', {
    allowed_scopes: ['notes:read', 'notes:write'],
    capability_constraints: { scopes: ['notes:read'], can_delegate: true },
    requires_confirmation: false,
  });
  archivist = await agent('archivist', { allowed_scopes: ['notes:read'], requires_confirmation: false });
});
after(async () => server?.close());

test("a person's token exchanged by an agent, then by a sub-agent: the chain, act and parent at each hop", async () => {
  const subject = await patToken();
  const hop1 = await exchange(subject, planner, { scope: 'notes:read notes:write', audience: 'https://notes.example' });
  assert.equal(hop1.token_type, 'bearer');
  assert.equal(hop1.issued_token_type, ACCESS);
  assert.equal(hop1.scope, 'notes:read notes:write');
  const i1 = await introspect(hop1.access_token);
  assert.equal(i1.active, true);
  assert.equal(i1.sub, patId, 'the token acts for the person');
  assert.equal(i1.username, pat.email);
  assert.deepEqual(i1.delegation_chain, [patId, planner.id]);
  assert.deepEqual(i1.act, { sub: planner.id });
  assert.deepEqual(i1.aud, ['https://notes.example']);
  assert.equal(i1.client_id, runtime.clientId);

  const hop2 = await exchange(hop1.access_token, summarizer);
  assert.equal(hop2.scope, 'notes:read', "the sub-agent's capabilities narrow the parent's scopes");
  const i2 = await introspect(hop2.access_token);
  assert.equal(i2.active, true);
  assert.equal(i2.sub, patId);
  assert.deepEqual(i2.delegation_chain, [patId, planner.id, summarizer.id]);
  assert.deepEqual(
    i2.act,
    { sub: summarizer.id, act: { sub: planner.id } },
    'the current actor outermost, the prior one nested',
  );
  assert.deepEqual(i2.aud, ['https://notes.example'], 'the audience is inherited');

  const rows = await server.runtime.db.query<{
    id: string;
    parent_token_id: string | null;
    delegation_chain: string[] | null;
  }>(
    "SELECT id, parent_token_id, delegation_chain FROM oauth_tokens WHERE principal_id = $1 AND kind = 'access_token' ORDER BY created_at",
    [patId],
  );
  const [root, first, second] = rows.rows.slice(-3);
  assert.equal(root!.delegation_chain, null);
  assert.equal(first!.parent_token_id, root!.id);
  assert.equal(second!.parent_token_id, first!.id);
  assert.equal(i2.parent_token_id, first!.id);

  // The person's listing shows both agents with their live tokens; the exchange record names who, for whom, what.
  const listed = await api(`/principals/${patId}/agents`);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const byId = new Map(listed.body.items.map((x: any) => [x.agent.id, x]));
  assert.ok((byId.get(planner.id) as any).live_tokens.some((t: any) => t.id === first!.id));
  assert.ok((byId.get(summarizer.id) as any).live_tokens.some((t: any) => t.id === second!.id));
  const exchanges = await api(`/principals/${patId}/exchanges?limit=1`);
  assert.equal(exchanges.status, 200);
  assert.equal(exchanges.body.items[0].actor_id, summarizer.id);
  assert.deepEqual(exchanges.body.items[0].delegation_chain, [patId, planner.id, summarizer.id]);
  assert.deepEqual(exchanges.body.items[0].scopes, ['notes:read']);
  assert.equal(exchanges.body.items[0].outcome, 'issued');
  assert.equal(exchanges.body.items[0].token_id, second!.id);
  const older = await api(`/principals/${patId}/exchanges?limit=1&cursor=${encodeURIComponent(exchanges.body.next)}`);
  assert.equal(older.body.items[0].actor_id, planner.id);
  assert.equal(
    (await api(`/me/exchanges`, { token: subject })).body.items.length,
    2,
    'the person reads the same record',
  );
});

test('scope and audience escalation are refused at each hop', async () => {
  const subject = await patToken(notes, 'notes:read');
  assert.equal(
    (await refused(exchange(subject, planner, { scope: 'notes:write' }))).error,
    'invalid_scope',
    'beyond the subject token',
  );
  const full = await patToken();
  assert.equal(
    (await refused(exchange(full, planner, { scope: 'mail:send' }))).error,
    'invalid_scope',
    "beyond the agent's scopes",
  );
  assert.equal((await refused(exchange(full, planner, { audience: 'https://evil.example' }))).error, 'invalid_target');
  const hop1 = await exchange(full, planner, { scope: 'notes:read', audience: 'https://notes.example' });
  assert.equal(
    (await refused(exchange(hop1.access_token, summarizer, { scope: 'notes:write' }))).error,
    'invalid_scope',
    "beyond the parent's scopes",
  );
  assert.equal(
    (await refused(exchange(hop1.access_token, summarizer, { audience: 'https://files.example' }))).error,
    'invalid_target',
    "beyond the parent's audience",
  );
  // Several audiences at once (the parameter repeats), each within the agent's list.
  const both = new URLSearchParams({
    grant_type: EXCHANGE,
    subject_token: full,
    subject_token_type: ACCESS,
    actor_token: await assertion(planner),
    actor_token_type: JWT,
  });
  both.append('audience', 'https://notes.example');
  both.append('audience', 'https://files.example');
  const two = await fetch(`${server.issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: basic(runtime.clientId, runtime.secret!),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: both,
  });
  assert.equal(two.status, 200);
  assert.deepEqual((await introspect(((await two.json()) as any).access_token)).aud, [
    'https://notes.example',
    'https://files.example',
  ]);
  const record = await api(`/principals/${planner.id}/exchanges`);
  assert.ok(record.body.items.some((x: any) => x.outcome === 'refused' && x.error === 'invalid_target'));
});

test("the lifetime is capped by the agent's max_token_lifetime and by the subject token's expiry", async () => {
  const long = await exchange(await patToken(), planner);
  assert.ok(long.expires_in! <= 600 && long.expires_in! > 590, `planner's 600 s cap: ${long.expires_in}`);
  const shortSubject = await patToken(briefNotes);
  const capped = await exchange(shortSubject, summarizer);
  assert.ok(capped.expires_in! <= 120, `never beyond the subject's 120 s: ${capped.expires_in}`);
  const i = await introspect(capped.access_token);
  const subjectIntro = await form(
    `${server.issuer}/oauth/introspect`,
    { token: shortSubject },
    { authorization: basic(briefNotes.clientId, briefNotes.secret!) },
  );
  assert.ok(i.exp <= subjectIntro.json.exp);
});

test('revoking the root ends every hop', async () => {
  const subject = await patToken();
  const hop1 = await exchange(subject, planner);
  const hop2 = await exchange(hop1.access_token, summarizer);
  const revoked = await form(
    `${server.issuer}/oauth/revoke`,
    { token: subject },
    { authorization: basic(notes.clientId, notes.secret!) },
  );
  assert.equal(revoked.status, 200);
  assert.equal((await introspect(hop1.access_token)).active, false);
  assert.equal((await introspect(hop2.access_token)).active, false);
  const rows = await server.runtime.db.query<{ revoked_reason: string }>(
    'SELECT revoked_reason FROM oauth_tokens WHERE parent_token_id IS NOT NULL AND revoked AND id IN (SELECT token_id FROM delegation_exchanges WHERE token_id IS NOT NULL) ORDER BY created_at DESC LIMIT 2',
  );
  assert.deepEqual(
    rows.rows.map((r) => r.revoked_reason),
    ['parent_revoked', 'parent_revoked'],
  );
  assert.equal(
    (await refused(exchange(hop1.access_token, summarizer))).error,
    'invalid_grant',
    'a dead parent cannot be exchanged',
  );
});

test('revoking a middle hop ends the hops below it, not the ones above', async () => {
  const subject = await patToken();
  const hop1 = await exchange(subject, planner);
  const hop2 = await exchange(hop1.access_token, summarizer);
  const revoked = await form(
    `${server.issuer}/oauth/revoke`,
    { token: hop1.access_token },
    { authorization: basic(runtime.clientId, runtime.secret!) },
  );
  assert.equal(revoked.status, 200);
  assert.equal((await introspect(hop2.access_token)).active, false);
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/introspect`,
        { token: subject },
        { authorization: basic(notes.clientId, notes.secret!) },
      )
    ).json.active,
    true,
  );
});

test("a deactivated agent's tokens, and those delegated from them, are inactive; the person's are not", async () => {
  const middle = await agent('courier', {
    allowed_scopes: ['notes:read'],
    capability_constraints: { can_delegate: true },
    requires_confirmation: false,
  });
  const subject = await patToken();
  const hop1 = await exchange(subject, middle);
  const hop2 = await exchange(hop1.access_token, archivist);
  assert.equal((await introspect(hop2.access_token)).active, true);
  assert.equal((await api(`/principals/${middle.id}/deactivate`, { method: 'POST' })).status, 200);
  assert.equal((await introspect(hop1.access_token)).active, false);
  assert.equal((await introspect(hop2.access_token)).active, false);
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/introspect`,
        { token: subject },
        { authorization: basic(notes.clientId, notes.secret!) },
      )
    ).json.active,
    true,
  );
  assert.equal(
    (await refused(exchange(subject, middle))).error,
    'invalid_grant',
    'a deactivated agent cannot exchange',
  );
});

test('deactivating the person ends the whole chain', async () => {
  const sam = { email: 'sam@example.com', password: 'sam has a long passphrase' };
  const samId = await server.createHuman(sam.email, sam.password);
  await api(`/principals/${samId}`, { method: 'PATCH', body: { allowed_scopes: ['notes:read'] } });
  const saved = { ...pat };
  Object.assign(pat, sam);
  const subject = await patToken(notes, 'notes:read').finally(() => Object.assign(pat, saved));
  const hop1 = await exchange(subject, planner);
  assert.equal((await introspect(hop1.access_token)).active, true);
  await api(`/principals/${samId}/deactivate`, { method: 'POST' });
  assert.equal((await introspect(hop1.access_token)).active, false);
});

test('an agent without can_delegate cannot pass its token on, and the chain has a maximum depth', async () => {
  const subject = await patToken();
  const byArchivist = await exchange(subject, archivist);
  const leaf = await agent('leaf', { allowed_scopes: ['notes:read'], requires_confirmation: false });
  const noDelegation = await refused(exchange(byArchivist.access_token, leaf));
  assert.equal(noDelegation.error, 'invalid_grant');
  assert.match(noDelegation.error_description ?? '', /delegate/);
  const hop1 = await exchange(subject, planner);
  const hop2 = await exchange(hop1.access_token, summarizer);
  const tooDeep = await refused(exchange(hop2.access_token, archivist));
  assert.equal(tooDeep.error, 'invalid_grant');
  assert.match(tooDeep.error_description ?? '', /more than 2 agents/);
  assert.equal(
    (await refused(exchange(hop1.access_token, planner))).error,
    'invalid_grant',
    'an agent cannot appear twice',
  );
});

test('an agent that needs confirmation is refused with access_denied until the person approves; the person sees the request', async () => {
  const helper = await agent('helper', { allowed_scopes: ['notes:read', 'notes:write'] });
  const subject = await patToken();
  const denied = await refused(exchange(subject, helper, { scope: 'notes:read' }));
  assert.equal(denied.error, 'access_denied');
  const mine = await api('/me/agents', { token: subject });
  assert.equal(mine.status, 200, JSON.stringify(mine.body));
  const entry = mine.body.items.find((x: any) => x.agent.id === helper.id);
  assert.equal(entry.approval.status, 'pending');
  assert.deepEqual(entry.approval.pending_scopes, ['notes:read']);
  assert.equal(entry.agent.agent.model_id, 'acme-llm-4');

  const approved = await api(`/me/agents/${helper.id}/approve`, { method: 'POST', token: subject });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  assert.equal(approved.body.status, 'approved');
  const ok = await exchange(subject, helper, { scope: 'notes:read' });
  assert.equal(ok.scope, 'notes:read');
  // More than was approved is a new request.
  assert.equal((await refused(exchange(subject, helper, { scope: 'notes:read notes:write' }))).error, 'access_denied');
  // A token the agent holds for the person cannot approve anything for it.
  const self = await api(`/me/agents/${helper.id}/approve`, { method: 'POST', token: ok.access_token });
  assert.equal(self.status, 403);
  assert.equal(self.body.error.code, 'FORBIDDEN');

  // Withdrawing the approval (person or admin) revokes the tokens it holds for the person.
  assert.equal((await api(`/me/agents/${helper.id}/approval`, { method: 'DELETE', token: subject })).status, 204);
  assert.equal((await introspect(ok.access_token)).active, false);
  assert.equal((await refused(exchange(subject, helper, { scope: 'notes:read' }))).error, 'access_denied');
  assert.equal(
    (await api(`/principals/${patId}/agents/${helper.id}/approval`, { method: 'DELETE' })).status,
    204,
    'an admin withdraws the new pending request',
  );
  assert.equal((await api(`/principals/${patId}/agents/${helper.id}/approval`, { method: 'DELETE' })).status, 404);
});

test("a token an agent holds for a person is refused (403 FORBIDDEN) on identity's management, invitation, account and marketplace routes; the person's own token is not", async () => {
  const subject = await patToken();
  const held = (await exchange(subject, planner, { scope: 'notes:read', audience: 'https://notes.example' }))
    .access_token;
  assert.equal((await introspect(held)).active, true, 'the delegated token itself is live');
  const forbidden = (r: { status: number; body: any }, what: string) => {
    assert.equal(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'FORBIDDEN', what);
    assert.match(r.body.error.message, /agent holds for a person/, what);
  };

  // An invitation for pat: the agent cannot accept it (join an organization) for them; pat can.
  const org = await api('/organizations', {
    method: 'POST',
    body: { name: 'Agents Inc', slug: `agents-${randomUUID().slice(0, 8)}` },
  });
  assert.equal(org.status, 201, JSON.stringify(org.body));
  const invite = await api(`/organizations/${org.body.id}/invites`, { method: 'POST', body: { email: pat.email } });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  const inviteToken = new URL(invite.body.link).searchParams.get('token')!;
  forbidden(
    await api('/invitations/accept', { method: 'POST', body: { token: inviteToken }, token: held }),
    'invitation accept',
  );
  assert.equal(
    (
      await server.runtime.db.query(
        'SELECT 1 FROM principal_memberships WHERE principal_id = $1 AND organization_id = $2',
        [patId, org.body.id],
      )
    ).rowCount,
    0,
  );
  const accepted = await api('/invitations/accept', { method: 'POST', body: { token: inviteToken }, token: subject });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));

  // The marketplace (listings, licenses, seats): refused; pat's own token gets in.
  forbidden(await api('/listings', { token: held }), 'marketplace list');
  forbidden(
    await api('/listings', { method: 'POST', token: held, body: { organization_id: org.body.id, name: 'x' } }),
    'marketplace create',
  );
  assert.equal((await api('/listings', { token: subject })).status, 200);

  // The person's password: refused, and the password is unchanged.
  forbidden(
    await api('/account/password', {
      method: 'PUT',
      token: held,
      body: { current_password: pat.password, new_password: 'an agent chose this password' },
    }),
    'password change',
  );
  const again = await patToken();
  assert.ok(again, 'pat still signs in with the old password');

  // The management API under the kit guard, and the person's agent routes.
  forbidden(await api(`/principals/${patId}`, { token: held }), 'management API');
  assert.equal((await api(`/me/agents/${planner.id}/approve`, { method: 'POST', token: held })).status, 403);
});

test('an agent required to use DPoP gets bound tokens only with a proof', async () => {
  const bound = await agent('bound', {
    allowed_scopes: ['notes:read'],
    requires_confirmation: false,
    dpop_required: true,
  });
  const subject = await patToken();
  const without = await refused(exchange(subject, bound));
  assert.equal(without.error, 'invalid_grant');
  const keys = await generateKeyPair('ES256');
  const withProof = await exchange(
    subject,
    bound,
    {},
    { DPoP: oauth.DPoP({ client_id: runtime.clientId } as oauth.Client, keys) },
  );
  assert.equal(withProof.token_type, 'dpop');
  const i = await introspect(withProof.access_token);
  assert.equal(i.token_type, 'DPoP');
  assert.deepEqual(i.cnf, { jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
  assert.deepEqual(i.delegation_chain, [patId, bound.id]);
});

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
const thumbprint = async (keys: KeyPair) => calculateJwkThumbprint(await exportJWK(keys.publicKey));
const dpop = (keys: KeyPair) => oauth.DPoP({ client_id: runtime.clientId } as oauth.Client, keys);

/** The newest exchange records naming this agent (the admin's view). */
const latestExchanges = async (agentId: string, limit: number) =>
  (await api(`/principals/${agentId}/exchanges?limit=${limit}`)).body.items as any[];

test('a DPoP-bound subject token is exchanged only with a proof by its key (a stolen one is useless); the delegated token is bound to that key', async () => {
  const keys = await generateKeyPair('ES256');
  const subject = await patToken(notes, 'notes:read notes:write', {
    DPoP: oauth.DPoP({ client_id: notes.clientId } as oauth.Client, keys),
  });
  const jkt = await thumbprint(keys);
  assert.deepEqual((await introspect(subject)).cnf, { jkt }, 'the subject token is bound');

  const without = await refused(exchange(subject, planner, { scope: 'notes:read' }));
  assert.equal(without.error, 'invalid_grant');
  assert.match(
    without.error_description ?? '',
    /subject token is DPoP-bound: the request needs a DPoP proof by its key/,
  );
  const thief = await generateKeyPair('ES256');
  const otherKey = await refused(exchange(subject, planner, { scope: 'notes:read' }, { DPoP: dpop(thief) }));
  assert.equal(otherKey.error, 'invalid_grant', "a proof by another key (the thief's own) does not do");
  assert.match(otherKey.error_description ?? '', /subject token is DPoP-bound/);
  const [second, first] = await latestExchanges(planner.id, 2);
  for (const x of [first, second]) {
    assert.equal(x.outcome, 'refused');
    assert.equal(x.error, 'invalid_grant');
    assert.equal(x.token_id, null);
  }

  const issued = await exchange(subject, planner, { scope: 'notes:read' }, { DPoP: dpop(keys) });
  assert.equal(issued.token_type, 'dpop');
  const i = await introspect(issued.access_token);
  assert.equal(i.active, true);
  assert.deepEqual(i.cnf, { jkt }, 'the delegated token is bound to the same key');
  // The bound delegated token in turn passes to a sub-agent only with a proof by that key.
  assert.match(
    (await refused(exchange(issued.access_token, summarizer))).error_description ?? '',
    /subject token is DPoP-bound/,
  );
  const hop2 = await exchange(issued.access_token, summarizer, {}, { DPoP: dpop(keys) });
  assert.deepEqual((await introspect(hop2.access_token)).cnf, { jkt });
});

test('a bound subject token and an actor token bound to another key are refused together: one DPoP proof cannot prove two keys', async () => {
  const subjectKeys = await generateKeyPair('ES256');
  const actorKeys = await generateKeyPair('ES256');
  const subject = await patToken(notes, 'notes:read', {
    DPoP: oauth.DPoP({ client_id: notes.clientId } as oauth.Client, subjectKeys),
  });
  // No grant of ours issues an agent a bound token of its own yet; the provider makes one as its DPoP-aware grants would.
  const provider = server.runtime.holder.current;
  const client = await provider.Client.find(runtime.clientId);
  type Init = ConstructorParameters<typeof provider.AccessToken>[0];
  const ownToken = async (keys: KeyPair) => {
    const t = new provider.AccessToken({
      client: client!,
      accountId: archivist.id,
      scope: 'notes:read',
      gty: 'jwt_bearer',
    } as unknown as Init);
    t.setThumbprint('jkt', await thumbprint(keys));
    return t.save();
  };
  const actor = await ownToken(actorKeys);
  for (const [label, keys] of [
    ["the subject's key", subjectKeys],
    ["the actor's key", actorKeys],
  ] as const) {
    const r = await refused(exchange(subject, actor, {}, { DPoP: dpop(keys) }));
    assert.equal(r.error, 'invalid_grant', label);
    assert.match(r.error_description ?? '', /bound to different keys: one DPoP proof cannot prove both/, label);
  }
  assert.equal((await latestExchanges(archivist.id, 1))[0].outcome, 'refused');
  // Both bound to the same key: one proof proves both.
  const same = await exchange(subject, await ownToken(subjectKeys), {}, { DPoP: dpop(subjectKeys) });
  assert.deepEqual((await introspect(same.access_token)).cnf, { jkt: await thumbprint(subjectKeys) });
  assert.deepEqual((await introspect(same.access_token)).delegation_chain, [patId, archivist.id]);
});

test("an organization-scoped subject token gives a delegated token in the same organization, which ends with the person's membership; another organization is refused", async () => {
  const slug = `pat-co-${randomUUID().slice(0, 8)}`;
  const org = await api('/organizations', { method: 'POST', body: { name: 'Pat Co', slug } });
  const side = await api('/organizations', {
    method: 'POST',
    body: { name: 'Pat Side', slug: `pat-side-${randomUUID().slice(0, 8)}` },
  });
  for (const o of [org, side]) {
    assert.equal(o.status, 201, JSON.stringify(o.body));
    const added = await api(`/organizations/${o.body.id}/members`, {
      method: 'POST',
      body: { principal_id: patId, role: 'editor', permissions: ['notes:export'] },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
  }
  const subject = await patToken(notes, 'notes:read notes:write', { organization: slug });
  assert.equal((await introspect(subject)).org_id, org.body.id);

  const hop1 = await exchange(subject, planner, { scope: 'notes:read notes:write' });
  const i1 = await introspect(hop1.access_token);
  assert.equal(i1.active, true);
  assert.equal(i1.org_id, org.body.id, "the delegated token stays in the subject's organization");
  assert.equal(i1.org_role, 'editor');
  assert.deepEqual(i1.org_permissions, ['notes:export']);
  const hop2 = await exchange(hop1.access_token, summarizer);
  assert.equal((await introspect(hop2.access_token)).org_id, org.body.id, "and so does a sub-agent's");
  assert.equal(
    (await introspect((await exchange(subject, planner, { organization: slug })).access_token)).org_id,
    org.body.id,
    'naming the same organization is fine',
  );

  const elsewhere = await refused(exchange(subject, planner, { organization: side.body.id }));
  assert.equal(elsewhere.error, 'invalid_grant', 'another organization, even one the person is in, is refused');
  assert.match(elsewhere.error_description ?? '', /subject token is bound to another organization/);
  const [record] = await latestExchanges(planner.id, 1);
  assert.equal(record.outcome, 'refused');
  assert.equal(record.error, 'invalid_grant');

  // A token without an organization may be narrowed to one of the person's organizations, as the other grants allow.
  const plain = await patToken(notes, 'notes:read');
  const narrowed = await exchange(plain, archivist, { organization: side.body.id });
  assert.equal((await introspect(narrowed.access_token)).org_id, side.body.id);
  const unscoped = await exchange(plain, archivist);
  assert.equal((await introspect(unscoped.access_token)).org_id, undefined);

  // The membership ending makes the delegated tokens inactive at once, and the subject can no longer be exchanged.
  assert.equal((await api(`/organizations/${org.body.id}/members/${patId}`, { method: 'DELETE' })).status, 200);
  assert.equal((await introspect(hop1.access_token)).active, false);
  assert.equal((await introspect(hop2.access_token)).active, false);
  assert.equal((await refused(exchange(subject, planner))).error, 'invalid_grant');
  assert.equal((await introspect(narrowed.access_token)).active, true, "another organization's token lives on");
  assert.equal((await introspect(unscoped.access_token)).active, true);
});

test("a person's agents are listed in cursor pages past a page boundary, each with its live tokens; a bad cursor or limit is a 400", async () => {
  const danaId = await server.createHuman(`dana-${randomUUID().slice(0, 8)}@example.com`, 'dana has a long passphrase');
  assert.equal(
    (await api(`/principals/${danaId}`, { method: 'PATCH', body: { allowed_scopes: ['notes:read'] } })).status,
    200,
  );
  const hers: Agent[] = [];
  for (const n of [1, 2, 3])
    hers.push(
      await agent(`dana-agent-${n}-${randomUUID().slice(0, 6)}`, {
        allowed_scopes: ['notes:read'],
        requires_confirmation: false,
        delegating_principal_id: danaId,
      }),
    );
  const ids = hers.map((a) => a.id).sort();
  // The last agent in id order (on the second page) holds a live token for dana.
  const provider = server.runtime.holder.current;
  type Init = ConstructorParameters<typeof provider.AccessToken>[0];
  const danaToken = await new provider.AccessToken({
    client: (await provider.Client.find(notes.clientId))!,
    accountId: danaId,
    scope: 'notes:read',
    gty: 'authorization_code',
  } as unknown as Init).save();
  await exchange(danaToken, hers.find((a) => a.id === ids[2])!);

  const first = await api(`/principals/${danaId}/agents?limit=2`);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(
    first.body.items.map((x: any) => x.agent.id),
    ids.slice(0, 2),
  );
  assert.equal(typeof first.body.next, 'string');
  assert.ok(first.body.items.every((x: any) => x.live_tokens.length === 0));
  const second = await api(`/principals/${danaId}/agents?limit=2&cursor=${encodeURIComponent(first.body.next)}`);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.deepEqual(
    second.body.items.map((x: any) => x.agent.id),
    ids.slice(2),
  );
  assert.equal(second.body.next, null);
  assert.equal(second.body.items[0].live_tokens.length, 1, "the second page carries its agents' live tokens");
  assert.equal((await api(`/principals/${danaId}/agents`)).body.items.length, 3, 'the default page holds them all');

  // The person's own list pages the same way.
  const mine = await api('/me/agents?limit=1', { token: danaToken });
  assert.equal(mine.status, 200, JSON.stringify(mine.body));
  assert.deepEqual(
    mine.body.items.map((x: any) => x.agent.id),
    [ids[0]],
  );
  assert.deepEqual(
    (await api(`/me/agents?limit=1&cursor=${encodeURIComponent(mine.body.next)}`, { token: danaToken })).body.items.map(
      (x: any) => x.agent.id,
    ),
    [ids[1]],
  );

  // /openapi.json describes the paging of both lists.
  const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as any;
  for (const path of ['/api/v1/me/agents', '/api/v1/principals/{id}/agents']) {
    const op = doc.paths[path].get;
    const limit = op.parameters.find((p: any) => p.name === 'limit' && p.in === 'query');
    assert.deepEqual([limit?.schema.minimum, limit?.schema.maximum], [1, 500], path);
    assert.ok(
      op.parameters.some((p: any) => p.name === 'cursor' && p.in === 'query'),
      path,
    );
    const next = op.responses['200'].content['application/json'].schema.properties.next;
    assert.deepEqual(
      next.anyOf.map((t: any) => t.type).sort(),
      ['null', 'string'],
      `${path}: next is a cursor or null`,
    );
  }

  const exchangeCursor = Buffer.from(JSON.stringify(['2026-01-01 00:00:00+00', ids[0]])).toString('base64url');
  for (const [label, query] of [
    ['limit 0', 'limit=0'],
    ['limit 501', 'limit=501'],
    ['limit not a number', 'limit=many'],
    ['a cursor not from this list', 'cursor=bogus'],
    ["another list's cursor", `cursor=${exchangeCursor}`],
    ['an unknown parameter', 'page=2'],
  ] as const) {
    for (const path of [`/principals/${danaId}/agents?${query}`, `/me/agents?${query}`]) {
      const r = await api(path, { token: path.startsWith('/me') ? danaToken : undefined });
      assert.equal(r.status, 400, `${label} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', label);
    }
  }
});

test('bad inputs get OAuth errors', async () => {
  const subject = await patToken();
  const actor = await assertion(planner);
  const base = {
    grant_type: EXCHANGE,
    subject_token: subject,
    subject_token_type: ACCESS,
    actor_token: actor,
    actor_token_type: JWT,
  };
  const cases: [string, Record<string, string | undefined>, number, string][] = [
    [
      'unknown subject token type',
      { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
      400,
      'invalid_request',
    ],
    ['garbage subject token', { subject_token: 'not-a-token' }, 400, 'invalid_grant'],
    ['no actor token', { actor_token: undefined }, 400, 'invalid_request'],
    [
      'unknown actor token type',
      { actor_token_type: 'urn:ietf:params:oauth:token-type:saml2' },
      400,
      'invalid_request',
    ],
    ['malformed actor JWT', { actor_token: 'eyJhbGciOi.broken.jwt' }, 400, 'invalid_grant'],
    ["a person's token as the actor", { actor_token: subject, actor_token_type: ACCESS }, 400, 'invalid_grant'],
    [
      'a refresh token requested',
      { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
      400,
      'invalid_request',
    ],
    ['an unknown scope', { scope: 'notes:delete' }, 400, 'invalid_scope'],
  ];
  for (const [label, change, status, error] of cases) {
    const body = Object.fromEntries(
      Object.entries({ ...base, ...change }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    const r = await raw(body);
    assert.equal(r.status, status, `${label}: ${r.text}`);
    assert.equal(r.json.error, error, `${label}: ${r.text}`);
  }
  const expired = await raw({
    ...base,
    actor_token: await assertion(planner, { exp: Math.floor(Date.now() / 1000) - 120 }),
  });
  assert.equal(expired.json.error, 'invalid_grant', 'an expired actor assertion');
  const replayed = await raw({ ...base, actor_token: actor });
  assert.equal(replayed.json.error, 'invalid_grant', 'an actor assertion is single-use');
  // A client-credentials token speaks for no person.
  const cc = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'notes:read' },
    { authorization: basic(runtime.clientId, runtime.secret!) },
  );
  assert.equal(
    (await raw({ ...base, subject_token: cc.json.access_token, actor_token: await assertion(planner) })).json.error,
    'invalid_grant',
  );
  // The agent's own access token (from its key pair) proves it as well.
  const own = await form(
    `${server.issuer}/oauth/token`,
    {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await assertion(archivist),
      scope: 'notes:read',
    },
    { authorization: basic(runtime.clientId, runtime.secret!) },
  );
  assert.equal(own.status, 200, own.text);
  const byOwn = await raw({ ...base, actor_token: own.json.access_token, actor_token_type: ACCESS });
  assert.equal(byOwn.status, 200, byOwn.text);
  assert.deepEqual((await introspect(byOwn.json.access_token)).delegation_chain, [patId, archivist.id]);
});

test("the CLI registers an agent with its key pair, and lists a person's agents (--json)", async () => {
  const { identityCommand } = await import('../../src/identity/cli/command.ts');
  const { loadIdentityConfig } = await import('../../src/identity/config.ts');
  const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const config = loadIdentityConfig(server.env);
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await identityCommand(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const dir = mkdtempSync(join(tmpdir(), 'agent-key-'));
  try {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const keyFile = join(dir, 'agent.pem');
    writeFileSync(keyFile, await exportSPKI(publicKey));
    const made = await run([
      'agents',
      'create',
      '--name',
      'cli-scribe',
      '--model',
      'acme-llm-4',
      '--for',
      pat.email,
      '--scope',
      'notes:read',
      '--audience',
      'https://notes.example',
      '--max-lifetime',
      '300',
      '--no-confirmation',
      '--public-key',
      keyFile,
      '--key-id',
      'cli-scribe-key',
      '--json',
    ]);
    assert.equal(made.code, 0, made.err);
    const body = JSON.parse(made.out);
    assert.equal(body.delegating_principal_id, patId);
    assert.equal(body.max_token_lifetime, 300);
    assert.deepEqual(body.resource_constraints, { audiences: ['https://notes.example'] });
    assert.equal(body.key_id, 'cli-scribe-key');
    const scribe: Agent = { id: body.id, kid: 'cli-scribe-key', privateKey };
    const issued = await exchange(await patToken(), scribe);
    assert.ok(issued.expires_in! <= 300);
    assert.deepEqual((await introspect(issued.access_token)).aud, ['https://notes.example']);

    const listed = await run(['agents', 'list', '--for', pat.email, '--json']);
    assert.equal(listed.code, 0, listed.err);
    const entry = JSON.parse(listed.out).items.find((x: any) => x.agent.id === scribe.id);
    assert.equal(entry.live_tokens.length, 1);

    const bad = await run(['agents', 'create', '--name', 'x', '--model', 'm', '--max-lifetime', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--max-lifetime/);
    const unknownPerson = await run(['agents', 'list', '--for', 'nobody@example.com']);
    assert.equal(unknownPerson.code, 2);
    const taken = await run(['agents', 'create', '--name', 'cli-scribe', '--model', 'm']);
    assert.notEqual(taken.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an agent bound to one person cannot act for another', async () => {
  const other = await server.createHuman('quinn@example.com', 'quinn has a long passphrase');
  const mine = await agent('pats-own', {
    allowed_scopes: ['notes:read'],
    requires_confirmation: false,
    delegating_principal_id: other,
  });
  const r = await refused(exchange(await patToken(), mine));
  assert.equal(r.error, 'invalid_grant');
  assert.match(r.error_description ?? '', /delegating principal/);
});

test('the agents APIs answer bad requests in the platform shape', async () => {
  const none = await fetch(`${server.issuer}/api/v1/me/agents`);
  assert.equal(none.status, 401);
  assert.equal(((await none.json()) as any).error.code, 'UNAUTHORIZED');
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.equal((await api('/me/agents', { token: 'not-a-token' })).status, 401);
  const subject = await patToken();
  const notUuid = await api('/me/agents/not-a-uuid/approve', { method: 'POST', token: subject });
  assert.equal(notUuid.status, 400);
  assert.equal(notUuid.body.error.code, 'VALIDATION_ERROR');
  assert.equal(
    (await api(`/me/agents/${planner.id}/approve`, { method: 'POST', token: subject })).status,
    404,
    'nothing pending',
  );
  assert.equal((await api('/principals/00000000-0000-4000-8000-000000000000/agents')).status, 404);
  assert.equal((await api(`/principals/${patId}/exchanges?cursor=bogus`)).status, 400);
  assert.equal((await api(`/principals/${patId}/agents`, { token: subject })).status, 403, 'a person is not an admin');
});
