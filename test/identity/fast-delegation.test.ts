import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { assertHandedOver, assertIssuedAlike, assertStoredAlike, headersOf, tokenPaths } from './fast-paths.ts';
import { approve } from '../../src/identity/delegation/store.ts';
import { ExchangeWrites } from '../../src/identity/delegation/exchange-writes.ts';
import { createOrganization, addMember } from '../../src/identity/organizations/store.ts';

// POST /oauth/token has two paths for the delegation exchange (RFC 8693 with an actor token): the fast route
// (src/identity/delegation/fast-exchange.ts) issues the request none of the exchange's checks refuses, anything else goes to
// the provider's grant (delegation/exchange.ts). fast-paths.ts makes the same request of both and tells which path
// answered; an actor assertion being single-use, each path gets its own.

const ADMIN_TOKEN = 'identity-admin-token-fast-delegation-0123';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';

let server: Server;
let paths: ReturnType<typeof tokenPaths>;
type Registered = Awaited<ReturnType<Server['registerApp']>>;
let runtime: Registered;
let notes: Registered;
let personId: string;
let otherPersonId: string;

interface Agent {
  id: string;
  kid: string;
  privateKey: CryptoKey;
}
const agents: Record<string, Agent> = {};

const api = managementApi(
  () => server.issuer,
  () => ADMIN_TOKEN,
);

async function agent(name: string, body: Record<string, unknown>): Promise<Agent> {
  const made = await api('/principals', {
    method: 'POST',
    // A lifetime shorter than any subject's, so both paths' tokens live alike however far apart they are issued.
    body: {
      type: 'agent',
      name,
      model_id: 'acme-llm-4',
      version: '2026-11',
      requires_confirmation: false,
      max_token_lifetime: 300,
      ...body,
    },
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

/** The agent's proof: an assertion signed with its key, single use. */
function assertion(a: Agent): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: a.kid })
    .setIssuer(a.id)
    .setSubject(a.id)
    .setAudience(server.issuer)
    .setExpirationTime('2m')
    .setJti(randomUUID())
    .sign(a.privateKey);
}

/** An access token made through the provider's own model (the sign-in pages are not what is tested here). */
async function accessToken(app: Registered, accountId: string, scope: string, jkt?: string): Promise<string> {
  const provider = server.runtime.holder.current;
  const client = await provider.Client.find(app.clientId);
  type AccessTokenInit = ConstructorParameters<typeof provider.AccessToken>[0];
  const token = new provider.AccessToken({
    client: client!,
    accountId,
    scope,
    gty: 'authorization_code',
  } as unknown as AccessTokenInit);
  if (jkt) token.setThumbprint('jkt', jkt);
  return token.save();
}

before(async () => {
  server = await startServer('fast_delegation', {
    IDENTITY_EXTRA_SCOPES: 'notes:read,notes:write',
    IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN,
    IDENTITY_DELEGATION_MAX_DEPTH: '2',
  });
  paths = tokenPaths(server);
  personId = await server.createHuman('fast-pat@example.com', 'fast pat has a long passphrase');
  otherPersonId = await server.createHuman('fast-dana@example.com', 'fast dana has a long passphrase');
  const scopes = ['notes:read', 'notes:write'];
  notes = await server.registerApp({
    name: 'Notes',
    appType: 'web',
    redirectUris: ['https://notes.example/cb'],
    allowedScopes: scopes,
  });
  runtime = await server.registerApp({ name: 'Agent runtime', appType: 'machine', allowedScopes: scopes });
  const delegating = { allowed_scopes: scopes, capability_constraints: { scopes, can_delegate: true } };
  agents.planner = await agent('planner', {
    ...delegating,
    resource_constraints: { audiences: ['https://notes.example', 'https://files.example'] },
    max_token_lifetime: 600,
  });
  agents.relay = await agent('relay', delegating);
  agents.summarizer = await agent('summarizer', {
    allowed_scopes: scopes,
    capability_constraints: { scopes: ['notes:read'] },
  });
  agents.careful = await agent('careful', { allowed_scopes: scopes, requires_confirmation: true });
  agents.strict = await agent('strict', { allowed_scopes: scopes, dpop_required: true });
  agents.loyal = await agent('loyal', { allowed_scopes: scopes, delegating_principal_id: otherPersonId });
  agents.retired = await agent('retired', { allowed_scopes: scopes });
});
after(() => server.close());

const auth = (app: Registered = runtime) => ({
  authorization: basic(app.clientId, app.secret!),
  'user-agent': 'fast-delegation-test/1',
});

/** An exchange's parameters; the actor proves itself by its own access token (a string) or a fresh assertion. */
async function exchangeParams(
  subject: string,
  actor: Agent | string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const actorToken =
    typeof actor === 'string'
      ? { actor_token: actor, actor_token_type: ACCESS }
      : { actor_token: await assertion(actor), actor_token_type: JWT };
  return { grant_type: EXCHANGE, subject_token: subject, subject_token_type: ACCESS, ...actorToken, ...extra };
}

const recorded = async () =>
  Number((await server.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM delegation_exchanges')).rows[0]!.n);

/**
 * The same exchange through the fast route and through the provider, each with its own parameters (fresh assertions);
 * and how many exchanges each path recorded.
 */
async function both(params: () => Promise<Record<string, string>>, headers: Record<string, string> = auth()) {
  const start = await recorded();
  const before = paths.providerGrants();
  const fast = await form(paths.tokenUrl, await params(), headers);
  const fastWentToProvider = paths.providerGrants() > before;
  const between = await recorded();
  const slow = await form(paths.tokenUrl, { ...(await params()), via: 'provider' }, headers);
  return { fast, slow, fastWentToProvider, records: [between - start, (await recorded()) - between] };
}

const introspect = async (value: string) => {
  const r = await form(`${server.issuer}/oauth/introspect`, { token: value }, auth(runtime));
  const { iat: _iat, exp: _exp, jti: _jti, ...rest } = r.json;
  return rest;
};

/** The two exchanges' records, but what differs between any two (ids, times, the issued token). */
async function lastRecords(): Promise<unknown[]> {
  const r = await server.runtime.db.query(
    `SELECT principal_id, actor_id, delegation_chain, client_id, scopes, audience, outcome, error, parent_token_id, client_ip,
            token_id IS NULL AS no_token, expires_at IS NULL AS no_expiry
       FROM delegation_exchanges ORDER BY created_at DESC, id DESC LIMIT 2`,
  );
  return r.rows;
}

async function assertExchangedAlike(what: string, pair: Awaited<ReturnType<typeof both>>) {
  const { fastToken, slowToken, rest } = assertIssuedAlike(pair);
  assert.deepEqual(pair.records, [1, 1], `${what}: each exchange recorded once`);
  const [a, b] = await lastRecords();
  assert.deepEqual(a, b, `${what}: recorded alike`);
  const row = await assertStoredAlike(server, fastToken, slowToken);
  const [fi, si] = [await introspect(fastToken), await introspect(slowToken)];
  assert.equal(fi.active, true, what);
  assert.deepEqual(fi, si, `${what}: introspected alike (act, delegation_chain, parent_token_id, aud, scope)`);
  return { fastToken, rest, row, introspected: fi };
}

test('the ordinary delegation is issued by the fast route, answered, stored, recorded and introspected as the provider does it', async () => {
  const subject = await accessToken(notes, personId, 'notes:read notes:write');
  const plannerOwn = await accessToken(runtime, agents.planner!.id, 'notes:read');
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ['an assertion, every scope', () => exchangeParams(subject, agents.planner!)],
    ["the agent's own token, one scope", async () => exchangeParams(subject, plannerOwn, { scope: 'notes:read' })],
    [
      'an audience and requested_token_type',
      () =>
        exchangeParams(subject, agents.planner!, {
          audience: 'https://notes.example',
          requested_token_type: ACCESS,
          scope: 'notes:write notes:read',
        }),
    ],
  ];
  for (const [what, params] of cases) {
    const { rest, row, introspected } = await assertExchangedAlike(what, await both(params));
    assert.equal(rest.issued_token_type, ACCESS, what);
    assert.equal(rest.expires_in, 600, `${what}: the agent's lifetime`);
    assert.equal(row.principal_id, personId, `${what}: for the person`);
    assert.equal(row.user_agent, 'fast-delegation-test/1');
    assert.deepEqual(introspected.delegation_chain, [personId, agents.planner!.id], what);
    assert.deepEqual(introspected.act, { sub: agents.planner!.id }, what);
  }

  // A sub-agent's hop from a delegated token: the chain grows, the capabilities narrow.
  const hop1 = await form(paths.tokenUrl, await exchangeParams(subject, agents.planner!), auth());
  assert.equal(hop1.status, 200, hop1.text);
  const { introspected, rest } = await assertExchangedAlike(
    'a sub-agent',
    await both(() => exchangeParams(hop1.json.access_token, agents.summarizer!)),
  );
  assert.equal(rest.scope, 'notes:read');
  assert.deepEqual(introspected.delegation_chain, [personId, agents.planner!.id, agents.summarizer!.id]);
  assert.deepEqual(introspected.act, { sub: agents.summarizer!.id, act: { sub: agents.planner!.id } });
});

test('every delegation the fast route does not take gets the provider answer, recorded alike', async () => {
  const subject = await accessToken(notes, personId, 'notes:read notes:write');
  const narrowSubject = await accessToken(notes, personId, 'notes:read');
  const agentSubject = await accessToken(runtime, agents.planner!.id, 'notes:read');
  const plannerOwn = await accessToken(runtime, agents.planner!.id, 'notes:read');
  const thumbprint = 'ZmFrZS1rZXktdGh1bWJwcmludC0wMTIzNDU2Nzg5';
  const bound = await accessToken(notes, personId, 'notes:read', thumbprint);
  const boundActor = await accessToken(runtime, agents.planner!.id, 'notes:read', thumbprint);
  const personOwn = await accessToken(runtime, personId, 'notes:read');
  const hop1 = await form(paths.tokenUrl, await exchangeParams(subject, agents.planner!), auth());
  const held = hop1.json.access_token as string;
  const hop2 = await form(paths.tokenUrl, await exchangeParams(held, agents.relay!), auth());
  assert.equal(hop2.status, 200, hop2.text);
  const summarizerHop = await form(paths.tokenUrl, await exchangeParams(subject, agents.summarizer!), auth());
  assert.equal(summarizerHop.status, 200, summarizerHop.text);
  const retiredOwn = await accessToken(runtime, agents.retired!.id, 'notes:read');
  assert.equal((await api(`/principals/${agents.retired!.id}/deactivate`, { method: 'POST', body: {} })).status, 200);
  // An organization is the provider's to decide: asked for, and carried over from a subject token bound to one.
  const org = await createOrganization(server.runtime.db, { name: 'Fast Delegation Org', slug: 'fast-deleg-org' });
  await addMember(server.runtime.db, org.id, personId, 'viewer', []);
  let before = paths.providerGrants();
  const orgHop = await form(
    paths.tokenUrl,
    await exchangeParams(subject, agents.planner!, { organization: 'fast-deleg-org' }),
    auth(),
  );
  assert.equal(orgHop.status, 200, orgHop.text);
  assert.equal(paths.providerGrants(), before + 1, 'issued by the provider');
  const orgSubject = orgHop.json.access_token as string;
  assert.equal((await introspect(orgSubject)).org_id, org.id);
  before = paths.providerGrants();
  const orgSubHop = await form(paths.tokenUrl, await exchangeParams(orgSubject, agents.relay!), auth());
  assert.equal(orgSubHop.status, 200, orgSubHop.text);
  assert.equal(paths.providerGrants(), before + 1, 'a subject bound to an organization: issued by the provider');
  assert.equal((await introspect(orgSubHop.json.access_token)).org_id, org.id, 'the organization carried over');
  const web = await server.registerApp({
    name: 'No CC',
    appType: 'web',
    redirectUris: ['https://no-cc.example/cb'],
    allowedScopes: ['notes:read'],
  });
  const narrowApp = await server.registerApp({ name: 'Narrow', appType: 'machine', allowedScopes: ['notes:read'] });

  const p =
    (subjectToken: string, actor: Agent | string, extra: Record<string, string> = {}) =>
    () =>
      exchangeParams(subjectToken, actor, extra);
  // [what, params, headers, status, error, records per path (0: refused before the actor is known)]
  const cases: [string, () => Promise<Record<string, string>>, Record<string, string>, number, string, number][] = [
    [
      'a wrong secret',
      p(subject, agents.planner!),
      { authorization: basic(runtime.clientId, 'wrong') },
      401,
      'invalid_client',
      0,
    ],
    ['an app without client credentials', p(subject, agents.planner!), auth(web), 400, 'unauthorized_client', 0],
    ['an unknown subject token', p('not-a-token', agents.planner!), auth(), 400, 'invalid_grant', 0],
    [
      'no actor token',
      async () => ({ grant_type: EXCHANGE, subject_token: subject, subject_token_type: ACCESS }),
      auth(),
      400,
      'invalid_request',
      0,
    ],
    [
      'an unknown actor token type',
      async () => ({ ...(await exchangeParams(subject, plannerOwn)), actor_token_type: 'urn:x:unknown' }),
      auth(),
      400,
      'invalid_request',
      0,
    ],
    [
      'another requested token type',
      p(subject, agents.planner!, { requested_token_type: JWT }),
      auth(),
      400,
      'invalid_request',
      0,
    ],
    ["an agent's own token as the subject", p(agentSubject, agents.summarizer!), auth(), 400, 'invalid_grant', 0],
    ['an unknown actor token', p(subject, 'not-a-token'), auth(), 400, 'invalid_grant', 0],
    ['a delegated token as the actor token', p(subject, held), auth(), 400, 'invalid_grant', 0],
    ["a person's own token as the actor token", p(subject, personOwn), auth(), 400, 'invalid_grant', 0],
    ['a deactivated agent', p(subject, retiredOwn), auth(), 400, 'invalid_grant', 0],
    ['a DPoP-bound subject without a proof', p(bound, agents.planner!), auth(), 400, 'invalid_grant', 1],
    ['a DPoP-bound actor token without a proof', p(subject, boundActor), auth(), 400, 'invalid_grant', 1],
    ['an agent that must use DPoP', p(subject, agents.strict!), auth(), 400, 'invalid_grant', 1],
    ['an agent already in the chain', p(held, agents.planner!), auth(), 400, 'invalid_grant', 1],
    [
      'a holder that may not delegate',
      p(summarizerHop.json.access_token, agents.relay!),
      auth(),
      400,
      'invalid_grant',
      1,
    ],
    ['a chain too deep', p(hop2.json.access_token, agents.summarizer!), auth(), 400, 'invalid_grant', 1],
    ["another person's agent", p(subject, agents.loyal!), auth(), 400, 'invalid_grant', 1],
    ['an unknown scope', p(subject, agents.planner!, { scope: 'made:up' }), auth(), 400, 'invalid_scope', 1],
    [
      'a scope the subject does not hold',
      p(narrowSubject, agents.planner!, { scope: 'notes:write' }),
      auth(),
      400,
      'invalid_scope',
      1,
    ],
    [
      'a scope the agent may not hold',
      p(subject, agents.summarizer!, { scope: 'notes:write' }),
      auth(),
      400,
      'invalid_scope',
      1,
    ],
    [
      'a scope the app may not hold',
      p(subject, agents.planner!, { scope: 'notes:write' }),
      auth(narrowApp),
      400,
      'invalid_scope',
      1,
    ],
    [
      "an audience outside the agent's",
      p(subject, agents.planner!, { audience: 'https://evil.example' }),
      auth(),
      400,
      'invalid_target',
      1,
    ],
    [
      'an organization the person is not in',
      p(subject, agents.planner!, { organization: 'no-such-org' }),
      auth(),
      400,
      'invalid_grant',
      1,
    ],
    [
      'a subject bound to an organization, another asked for',
      p(orgSubject, agents.relay!, { organization: 'no-such-org' }),
      auth(),
      400,
      'invalid_grant',
      1,
    ],
    ['no approval yet', p(subject, agents.careful!), auth(), 400, 'access_denied', 1],
  ];
  for (const [what, params, headers, status, error, records] of cases) {
    const pair = await both(params, headers);
    assertHandedOver(what, pair, status, error);
    assert.deepEqual(pair.records, [records, records], `${what}: recorded alike`);
    if (records) {
      const [a, b] = await lastRecords();
      assert.deepEqual(a, b, `${what}: the same record`);
    }
  }
  const pending = await server.runtime.db.query<{ pending_scopes: string[] }>(
    'SELECT pending_scopes FROM agent_approvals WHERE principal_id = $1 AND agent_id = $2',
    [personId, agents.careful!.id],
  );
  assert.deepEqual(pending.rows[0]?.pending_scopes.sort(), ['notes:read', 'notes:write'], 'the approval asked for');
});

test("an approved agent is issued by the fast route; a spent assertion is the provider's to refuse", async () => {
  const subject = await accessToken(notes, personId, 'notes:read');
  assert.equal(
    (await form(paths.tokenUrl, await exchangeParams(subject, agents.careful!), auth())).json.error,
    'access_denied',
  );
  assert.equal(await approve(server.runtime.db, personId, agents.careful!.id, null), true);
  await assertExchangedAlike('an approved agent', await both(() => exchangeParams(subject, agents.careful!)));

  const once = await exchangeParams(subject, agents.planner!);
  assert.equal((await form(paths.tokenUrl, once, auth())).status, 200);
  const replay = await both(async () => once);
  assertHandedOver('the same assertion again', replay, 400, 'invalid_grant');
  assert.deepEqual(replay.records, [0, 0], 'refused before the actor is known');
});

test('a subject revoked while the token is issued: the fast route refuses as the provider does, and records it alike', async () => {
  const plannerOwn = await accessToken(runtime, agents.planner!.id, 'notes:read');
  // The subject's row is looked up just before the token is saved; it is revoked right then, so the link finds it revoked.
  const lookup = ExchangeWrites.prototype.tokenRowId;
  ExchangeWrites.prototype.tokenRowId = async function (this: ExchangeWrites, value: string) {
    const id = await lookup.call(this, value);
    await server.runtime.db.query('UPDATE oauth_tokens SET revoked = true, revoked_at = now() WHERE id = $1', [id]);
    return id;
  };
  try {
    // Each path its own subject, as the first is revoked by then.
    const pair = await both(async () => exchangeParams(await accessToken(notes, personId, 'notes:read'), plannerOwn));
    assert.equal(pair.fastWentToProvider, false, 'answered by the fast route');
    assert.deepEqual(
      [pair.fast.status, pair.fast.json],
      [400, { error: 'invalid_grant', error_description: 'grant request is invalid' }],
    );
    assert.deepEqual([pair.fast.status, pair.fast.json], [pair.slow.status, pair.slow.json], "the provider's answer");
    assert.deepEqual(headersOf(pair.fast.headers), headersOf(pair.slow.headers), "the provider's headers");
    assert.deepEqual(pair.records, [1, 1]);
    // Alike but for the parent: each path had its own subject.
    const [a, b] = (await lastRecords()).map(({ parent_token_id: _, ...rest }: any) => rest);
    assert.deepEqual(a, b, 'recorded alike');
    assert.equal(a.outcome, 'refused');
  } finally {
    ExchangeWrites.prototype.tokenRowId = lookup;
  }
});

test('a statement failing once the token is saved: the fast route answers as the provider does (503 for an outage, else 500)', async () => {
  const plannerOwn = await accessToken(runtime, agents.planner!.id, 'notes:read');
  const link = ExchangeWrites.prototype.linkAndRecord;
  const failures: [string, () => Error, number, string][] = [
    [
      'the database gone',
      () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      503,
      'temporarily_unavailable',
    ],
    ['another failure', () => new Error('something else broke'), 500, 'server_error'],
  ];
  try {
    for (const [what, failure, status, error] of failures) {
      ExchangeWrites.prototype.linkAndRecord = async () => {
        throw failure();
      };
      const pair = await both(async () => exchangeParams(await accessToken(notes, personId, 'notes:read'), plannerOwn));
      assert.equal(pair.fastWentToProvider, false, `${what}: answered by the fast route`);
      assert.deepEqual([pair.fast.status, pair.fast.json.error], [status, error], what);
      assert.deepEqual(
        [pair.fast.status, pair.fast.json],
        [pair.slow.status, pair.slow.json],
        `${what}: the provider's answer`,
      );
      assert.deepEqual(headersOf(pair.fast.headers), headersOf(pair.slow.headers), `${what}: the provider's headers`);
      assert.deepEqual(pair.records, [0, 0], `${what}: nothing recorded by either`);
    }
  } finally {
    ExchangeWrites.prototype.linkAndRecord = link;
  }
});
