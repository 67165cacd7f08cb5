import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { basic, form, startServer, type Server } from '../identity/support.ts';
import { startAudit, type AuditHarness } from './support.ts';
import { assertBoundTokenRules, assertUnboundTokenRules, dpopProof, newKey, type Resource } from '../support/dpop.ts';

/** Access tokens of the platform's own identity service, checked by introspection (the audit service is a resource server there). */

let identity: Server;
let h: AuditHarness;
let caller: { clientId: string; secret: string | undefined; principalId: string };
let unscoped: { clientId: string; secret: string | undefined };

async function token(app: { clientId: string; secret: string | undefined }, scope: string): Promise<string> {
  const res = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope },
    { authorization: basic(app.clientId, app.secret!) },
  );
  assert.equal(res.status, 200, res.text);
  return res.json.access_token;
}

before(async () => {
  identity = await startServer('audittokens', { IDENTITY_EXTRA_SCOPES: 'audits,reports' });
  const resourceServer = await identity.registerApp({
    name: 'Audit service',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
  caller = await identity.registerApp({
    name: 'CI pipeline',
    appType: 'machine',
    allowedScopes: ['audits', 'reports'],
  });
  unscoped = await identity.registerApp({ name: 'Reports only', appType: 'machine', allowedScopes: ['reports'] });
  h = await startAudit(
    {
      AUDIT_IDENTITY_URL: identity.issuer,
      AUDIT_IDENTITY_CLIENT_ID: resourceServer.clientId,
      AUDIT_IDENTITY_CLIENT_SECRET: resourceServer.secret!,
      // Jobs stay pending: these tests are about who may queue and see them, not about auditing.
      AUDIT_CONCURRENCY: '0',
    },
    'audittokens',
  );
});

after(async () => {
  await h?.close();
  await identity?.close();
});

test('an active token with the required scope is accepted, and its jobs belong to its subject', async () => {
  const access = await token(caller, 'audits');
  const created = await h.call('POST', '/api/v1/audits', { url: 'http://127.0.0.1:9/' }, access);
  assert.equal(created.statusCode, 202, created.body);
  const listed = await h.call('GET', '/api/v1/audits', undefined, access);
  assert.equal(listed.statusCode, 200);
  assert.deepEqual(
    listed.json().items.map((j: any) => j.id),
    [created.json().id],
  );
  const { rows } = await h.sql.query('SELECT owner FROM jobs WHERE id = $1', [created.json().id]);
  assert.equal(rows[0].owner, `token:${caller.principalId}`);
  assert.equal(
    (await h.call('GET', `/api/v1/audits/${created.json().id}`)).statusCode,
    404,
    "an API key holder does not see the token holder's job",
  );
  const another = await token(caller, 'audits reports');
  assert.equal(
    (await h.call('GET', '/api/v1/audits', undefined, another)).json().items.length,
    1,
    'a second token of the same app is the same owner',
  );
  await h.call('DELETE', `/api/v1/audits/${created.json().id}`, undefined, access);
});

test('a token without the scope is 403; a revoked token and a made-up token are 401; each names why', async () => {
  const reportsOnly = await token(unscoped, 'reports');
  const noScope = await h.call('GET', '/api/v1/audits', undefined, reportsOnly);
  assert.equal(noScope.statusCode, 403);
  assert.equal(noScope.json().error.code, 'FORBIDDEN');
  assert.match(noScope.json().error.message, /lacks the scope audits/);

  const revoked = await token(caller, 'audits');
  const revocation = await form(
    `${identity.issuer}/oauth/revoke`,
    { token: revoked },
    { authorization: basic(caller.clientId, caller.secret!) },
  );
  assert.equal(revocation.status, 200);
  const afterRevoke = await h.call('GET', '/api/v1/audits', undefined, revoked);
  assert.equal(afterRevoke.statusCode, 401);
  assert.equal(afterRevoke.json().error.code, 'UNAUTHORIZED');
  assert.match(afterRevoke.json().error.message, /not active/);

  const madeUp = await h.call('GET', '/api/v1/audits', undefined, 'not-a-real-token-0123456789');
  assert.equal(madeUp.statusCode, 401);
  assert.match(madeUp.json().error.message, /not active/);
});

test('a DPoP-bound token needs Authorization: DPoP with a proof by its key (RFC 9449 §7); unbound tokens and API keys are Bearer only', async () => {
  const keys = await newKey();
  const res = await form(
    `${identity.issuer}/oauth/token`,
    { grant_type: 'client_credentials', scope: 'audits' },
    {
      authorization: basic(caller.clientId, caller.secret!),
      dpop: await dpopProof(keys, { htm: 'POST', htu: `${identity.issuer}/oauth/token` }),
    },
  );
  assert.equal(res.json.token_type, 'DPoP', res.text);
  // No AUDIT_PUBLIC_URL: htu is the scheme and Host the request came with (app.inject sends Host: localhost:80).
  const audits: Resource = {
    method: 'GET',
    htu: 'http://localhost/api/v1/audits',
    ok: 200,
    async call(headers) {
      const r = await h.app.inject({ method: 'GET', url: '/api/v1/audits', headers });
      const www = r.headers['www-authenticate'];
      return {
        status: r.statusCode,
        code: r.statusCode >= 400 ? r.json().error?.code : undefined,
        wwwAuthenticate: typeof www === 'string' ? www : undefined,
      };
    },
  };
  await assertBoundTokenRules(audits, res.json.access_token, keys);
  const viaApiKeyHeader = await h.app.inject({
    method: 'GET',
    url: '/api/v1/audits',
    headers: { 'x-api-key': res.json.access_token },
  });
  assert.equal(viaApiKeyHeader.statusCode, 401, 'a bound token in X-API-Key has no proof either');
  await assertUnboundTokenRules(audits, await token(caller, 'audits'));
  await assertUnboundTokenRules(audits, h.key);
});

test('when the identity service does not answer, tokens get 503 with Retry-After while API keys keep working', async () => {
  const access = await token(caller, 'audits');
  // A token never seen before, so no cached answer stands in for identity.
  await identity.app.close();
  const res = await h.call('GET', '/api/v1/audits', undefined, access);
  assert.equal(res.statusCode, 503);
  assert.equal(res.json().error.code, 'UNAVAILABLE');
  assert.match(res.json().error.message, /identity service did not answer/);
  assert.ok(res.headers['retry-after']);
  assert.equal((await h.call('GET', '/api/v1/audits')).statusCode, 200);
});
