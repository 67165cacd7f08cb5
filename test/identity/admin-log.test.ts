import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow } from '../support/code-flow.ts';
import { describeChange, redact } from '../../src/identity/admin-log/describe.ts';

/**
 * The change log (src/identity/admin-log): every change through the management API and the marketplace is recorded
 * with who made it, what, on what and when, secrets never; `GET /api/v1/admin-log` finds them by actor, action, target,
 * text and time, newest first, a page at a time.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://localhost:8765/callback';

describe('the administrative change log', () => {
  let server: Server;
  let olga: string;
  let olgaToken: string;
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  const asOlga = managementApi(
    () => server.issuer,
    () => olgaToken,
  );
  const log = async (query = '') => {
    const r = await api(`/admin-log${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { items: any[]; next: string | null };
  };
  const latest = async () => (await log('?limit=1')).items[0];

  before(async () => {
    server = await startServer('idadminlog', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
    olga = await server.createHuman('olga@acme.example', PASSWORD, true);
    await server.runtime.db.query(
      `UPDATE principals SET allowed_scopes = '["admin"]'::jsonb, display_name = 'Olga Owner' WHERE id = $1`,
      [olga],
    );
    const { clientId } = await server.registerApp({
      name: 'Console',
      appType: 'spa',
      redirectUris: [CALLBACK],
      allowedScopes: ['openid', 'admin'],
      firstParty: true,
    });
    const got = await codeFlow(new TestBrowser(), {
      issuer: server.issuer,
      clientId,
      redirectUri: CALLBACK,
      scope: 'openid admin',
      credentials: { email: 'olga@acme.example', password: PASSWORD },
    });
    assert.equal(got.status, 200);
    olgaToken = got.tokens.access_token;
  });
  after(async () => server?.close());

  test('applications: create, a secret added, revoked both ways; the secrets are never recorded', async () => {
    const made = await asOlga('/applications', {
      method: 'POST',
      body: { name: 'Billing', app_type: 'web', redirect_uris: ['https://billing.example/cb'], access_token_ttl: 600 },
    });
    assert.equal(made.status, 201);
    const appId = made.body.application.id;
    let entry = await latest();
    assert.equal(entry.action, 'application.create');
    assert.deepEqual(entry.actor, { kind: 'person', id: olga, name: 'Olga Owner', email: 'olga@acme.example' });
    assert.deepEqual(entry.target, { type: 'application', id: appId, name: 'Billing' });
    assert.equal(entry.after.name, 'Billing');
    assert.equal(entry.after.access_token_ttl, 600);
    assert.equal(entry.before, null);
    assert.match(entry.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const secret = await api(`/applications/${appId}/secrets`, { method: 'POST' });
    assert.equal(secret.status, 201);
    entry = await latest();
    assert.equal(entry.action, 'application.secret.create');
    assert.deepEqual(entry.actor, { kind: 'admin-token', id: null, name: null, email: null });
    assert.deepEqual(entry.after, { secret_id: secret.body.id });

    const first = (await api(`/applications/${appId}/secrets`)).body.items[0].id;
    assert.equal(
      (await api(`/applications/${appId}/secrets/${first}/revoke`, { method: 'POST', body: { reason: 'leaked' } }))
        .status,
      200,
    );
    entry = await latest();
    assert.equal(entry.action, 'application.secret.revoke');
    assert.deepEqual(entry.after, { secret_id: first, reason: 'leaked' });
    assert.equal((await api(`/applications/${appId}/secrets/${secret.body.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await latest()).action, 'application.secret.delete');

    const everything = JSON.stringify((await log()).items);
    assert.ok(!everything.includes(made.body.client_secret), 'the first secret is not in the log');
    assert.ok(!everything.includes(secret.body.client_secret), 'the added secret is not in the log');
  });

  test('principals, passwords, credentials and console rights: recorded, the password and API key redacted or absent', async () => {
    const ada = await api('/principals', {
      method: 'POST',
      body: { type: 'human', email: 'ada@acme.example', password: 'ada has a long password' },
    });
    assert.equal(ada.status, 201);
    let entry = await latest();
    assert.equal(entry.action, 'principal.create');
    assert.equal(entry.target.id, ada.body.id);
    assert.equal(entry.after.password, '[redacted]');
    assert.equal(entry.after.email, 'ada@acme.example');

    assert.equal(
      (await api(`/principals/${ada.body.id}/password`, { method: 'PUT', body: { password: 'another long password' } }))
        .status,
      204,
    );
    entry = await latest();
    assert.deepEqual([entry.action, entry.after], ['principal.password.set', { password: '[redacted]' }]);

    assert.equal((await api(`/principals/${ada.body.id}/deactivate`, { method: 'POST' })).status, 200);
    entry = await latest();
    assert.deepEqual(
      [entry.action, entry.target.type, entry.target.id],
      ['principal.deactivate', 'principal', ada.body.id],
    );

    const svc = await api('/principals', {
      method: 'POST',
      body: { type: 'service', name: 'etl', service_type: 'job' },
    });
    const key = await api(`/principals/${svc.body.id}/credentials`, {
      method: 'POST',
      body: { type: 'api_key', name: 'nightly' },
    });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    entry = await latest();
    assert.equal(entry.action, 'principal.credential.create');
    assert.equal(entry.after.credential_id, key.body.credential.id);
    assert.ok(!JSON.stringify(entry).includes(key.body.api_key), 'the API key is not in the log');

    // Console rights record themselves, once, with the rights before and after.
    const rights = await asOlga(`/principals/${svc.body.id}/console-rights`, { method: 'PUT', body: { rights: [] } });
    assert.equal(rights.status, 409);
    const human = await api('/principals', { method: 'POST', body: { type: 'human', email: 'eve@acme.example' } });
    assert.equal(
      (await asOlga(`/principals/${human.body.id}/console-rights`, { method: 'PUT', body: { rights: ['identity'] } }))
        .status,
      200,
    );
    const recorded = (await log(`?target_id=${human.body.id}&action=console_rights`)).items;
    assert.equal(recorded.length, 1);
    assert.deepEqual(
      [recorded[0].action, recorded[0].actor.id, recorded[0].before, recorded[0].after],
      ['console_rights.set', olga, { rights: [] }, { rights: ['identity'] }],
    );
  });

  test('organizations, members and invitations: recorded; the invitation link never; a refused change not at all', async () => {
    const org = await api('/organizations', { method: 'POST', body: { name: 'Acme', slug: 'acme' } });
    const orgId = org.body.id;
    let entry = await latest();
    assert.deepEqual(
      [entry.action, entry.target],
      ['organization.create', { type: 'organization', id: orgId, name: 'Acme' }],
    );

    const before = (await log()).items.length;
    assert.equal((await api('/organizations', { method: 'POST', body: { name: 'Again', slug: 'acme' } })).status, 409);
    assert.equal((await log()).items.length, before, 'a refused change is no change');

    await api(`/organizations/${orgId}/people`, {
      method: 'POST',
      body: { identifier: 'olga@acme.example', role: 'admin' },
    });
    entry = await latest();
    assert.deepEqual(
      [entry.action, entry.after.identifier, entry.after.role],
      ['organization.member.create', 'olga@acme.example', 'admin'],
    );
    await api(`/organizations/${orgId}/members/${olga}`, { method: 'PATCH', body: { role: 'owner' } });
    entry = await latest();
    assert.deepEqual(
      [entry.action, entry.after],
      ['organization.member.update', { principal_id: olga, role: 'owner' }],
    );
    await api(`/organizations/${orgId}/members/${olga}`, { method: 'DELETE' });
    assert.equal((await latest()).action, 'organization.member.delete');

    const invite = await api(`/organizations/${orgId}/invites`, {
      method: 'POST',
      body: { email: 'bob@acme.example' },
    });
    assert.equal(invite.status, 201);
    entry = await latest();
    assert.deepEqual(
      [entry.action, entry.after],
      ['organization.invite.create', { email: 'bob@acme.example', invite_id: invite.body.invite.id }],
    );
    const resent = await api(`/organizations/${orgId}/invites/${invite.body.invite.id}/resend`, { method: 'POST' });
    assert.equal((await latest()).action, 'organization.invite.resend');
    await api(`/organizations/${orgId}/invites/${invite.body.invite.id}/revoke`, { method: 'POST' });
    assert.deepEqual((await latest()).after, { invite_id: invite.body.invite.id });
    const everything = JSON.stringify((await log('?limit=200')).items);
    for (const link of [invite.body.link, resent.body.link])
      assert.ok(!everything.includes(new URL(link).searchParams.get('token')!), 'no invitation token in the log');

    await api(`/organizations/${orgId}`, { method: 'PATCH', body: { active: false } });
    entry = await latest();
    assert.deepEqual([entry.action, entry.after], ['organization.update', { active: false }]);
  });

  test('the marketplace: a listing made by the admin token is recorded', async () => {
    const org = await api('/organizations', { method: 'POST', body: { name: 'Market', slug: 'market' } });
    const listing = await api('/listings', {
      method: 'POST',
      body: { creator_org_id: org.body.id, owner_id: olga, product_type: 'app', title: 'Reports' },
    });
    assert.equal(listing.status, 201, JSON.stringify(listing.body));
    const entry = await latest();
    assert.deepEqual(
      [entry.action, entry.target.type, entry.target.id, entry.after.title],
      ['listing.create', 'listing', listing.body.id, 'Reports'],
    );
    assert.equal(entry.actor.kind, 'admin-token');
  });

  test('filters: actor, action prefix, target, text and time; pages newest first; bad filters are 400', async () => {
    const byOlga = (await log('?actor=OLGA@acme')).items;
    assert.deepEqual(
      byOlga.map((e) => e.action),
      // Her sign-in (before any change she made) is on the record too: sign-ins are identity events.
      ['console_rights.set', 'application.create', 'signin.succeed'],
    );
    assert.ok(byOlga.every((e) => e.actor.id === olga));
    assert.deepEqual(
      (await log(`?actor=${olga}`)).items.map((e) => e.id),
      byOlga.map((e) => e.id),
    );
    assert.ok((await log('?actor=admin-token')).items.every((e) => e.actor.kind === 'admin-token'));
    assert.equal((await log('?actor=nobody-like-this')).items.length, 0);

    const orgs = (await log('?action=organization')).items;
    assert.ok(orgs.length >= 8);
    assert.ok(orgs.every((e) => e.action.startsWith('organization.')));
    assert.ok(
      (await log('?action=organization.invite')).items.every((e) => e.action.startsWith('organization.invite.')),
    );
    assert.equal((await log('?action=organ')).items.length, 0, 'a beginning is whole words');
    assert.ok((await log('?target_type=application')).items.every((e) => e.target.type === 'application'));
    const bob = (await log('?q=BOB@acme')).items;
    assert.ok(bob.length >= 1 && bob.every((e) => JSON.stringify(e.after).includes('bob@acme.example')));

    const all = (await log('?limit=200')).items;
    const ids = all.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first',
    );
    const middle = all[Math.floor(all.length / 2)];
    assert.ok((await log(`?until=${encodeURIComponent(middle.at)}`)).items.every((e) => e.at < middle.at));
    assert.ok((await log(`?since=${encodeURIComponent(middle.at)}`)).items.every((e) => e.at >= middle.at));
    assert.equal((await log('?since=2999-01-01T00:00:00Z')).items.length, 0);

    const first = await log('?limit=2');
    const second = await log(`?limit=2&cursor=${first.next}`);
    assert.deepEqual(
      [...first.items, ...second.items].map((e) => e.id),
      all.slice(0, 4).map((e) => e.id),
    );

    for (const bad of [
      '?cursor=bm90LW91cnM',
      '?since=yesterday',
      '?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z',
      '?action=DROP%20TABLE',
      '?limit=0',
      '?unknown=1',
    ]) {
      const r = await api(`/admin-log${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR', bad);
    }
    const nobody = await fetch(`${server.issuer}/api/v1/admin-log`);
    assert.equal(nobody.status, 401);
  });
});

test('describeChange names a change from its route, and redact hides texts named as secrets', () => {
  const none = () => undefined;
  assert.deepEqual(
    describeChange({
      method: 'POST',
      route: '/api/v1/signing-keys/rotate',
      params: {},
      body: undefined,
      answer: () => ({ kid: 'k2' }),
    }),
    { action: 'signing-key.rotate', target: { type: 'signing-key', id: 'k2' }, details: {} },
  );
  assert.deepEqual(
    describeChange({
      method: 'DELETE',
      route: '/api/v1/principals/:id/agents/:agentId/approval',
      params: { id: 'p1', agentId: 'a1' },
      body: undefined,
      answer: none,
    }),
    { action: 'principal.agent.approval.delete', target: { type: 'principal', id: 'p1' }, details: { agent_id: 'a1' } },
  );
  assert.deepEqual(
    redact({ client_secret: 's', dpop_bound_access_tokens: true, access_token_ttl: 60, jwk: { d: 'x', n: 'y' } }),
    {
      client_secret: '[redacted]',
      dpop_bound_access_tokens: true,
      access_token_ttl: 60,
      jwk: { d: '[redacted]', n: 'y' },
    },
  );
  assert.equal((redact('x'.repeat(600)) as string).length, 501);
});
