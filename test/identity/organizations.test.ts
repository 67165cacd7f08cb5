import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

let server: Server;
let adminToken: string;
let adminId: string;
const admin = { email: 'org-admin@example.com', password: 'a long admin passphrase' };

function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? adminToken}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
}

before(async () => {
  server = await startServer('idorgs');
  adminId = await server.createHuman(admin.email, admin.password, true);
  const app = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'admin'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid admin',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, admin);
  adminToken = (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }))
    .access_token;
});
after(async () => server?.close());

test('organizations: created with the document defaults, read, listed, changed, deactivated', async () => {
  const created = await api('/organizations', {
    method: 'POST',
    body: { name: 'Acme', slug: 'acme', settings: { sso: false } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const acme = created.body;
  assert.equal(acme.org_type, 'team');
  assert.equal(acme.active, true);
  assert.deepEqual(acme.settings, { sso: false });
  assert.equal(acme.owner_principal_id, null);
  assert.match(acme.created_at, /Z$/);
  const personal = await api('/organizations', {
    method: 'POST',
    body: { name: 'Ada', slug: 'ada', org_type: 'personal', owner_principal_id: adminId },
  });
  assert.equal(personal.body.owner_principal_id, adminId);

  assert.deepEqual((await api(`/organizations/${acme.id}`)).body, acme);
  const teams = await api('/organizations?org_type=team');
  assert.ok(teams.body.items.some((o: any) => o.id === acme.id));
  assert.ok(!teams.body.items.some((o: any) => o.id === personal.body.id));

  const changed = await api(`/organizations/${acme.id}`, {
    method: 'PATCH',
    body: { name: 'Acme Inc', website_url: 'https://acme.example', org_type: 'enterprise' },
  });
  assert.equal(changed.status, 200);
  assert.equal(changed.body.name, 'Acme Inc');
  assert.equal(changed.body.org_type, 'enterprise');
  assert.equal(changed.body.slug, 'acme');
  const off = await api(`/organizations/${acme.id}`, { method: 'PATCH', body: { active: false } });
  assert.equal(off.body.active, false);
  assert.ok((await api('/organizations?active=false')).body.items.some((o: any) => o.id === acme.id));
});

test('bad organizations: 400 for bad fields, 409 for a taken slug, 404 for an unknown id', async () => {
  assert.equal((await api('/organizations', { method: 'POST', body: { name: 'Dup', slug: 'dup' } })).status, 201);
  const dup = await api('/organizations', { method: 'POST', body: { name: 'Dup again', slug: 'dup' } });
  assert.equal(dup.status, 409);
  for (const body of [
    { name: 'x', slug: 'Not A Slug' },
    { name: 'x', slug: '-x' },
    { name: '', slug: 'empty' },
    { name: 'x', slug: 'x', org_type: 'club' },
    { slug: 'noname' },
    { name: 'x', slug: 'x2', owner_principal_id: '00000000-0000-4000-8000-000000000000' },
  ]) {
    const r = await api('/organizations', { method: 'POST', body });
    assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status}`);
  }
  const other = (await api('/organizations', { method: 'POST', body: { name: 'Other', slug: 'other' } })).body;
  assert.equal((await api(`/organizations/${other.id}`, { method: 'PATCH', body: { slug: 'dup' } })).status, 409);
  assert.equal((await api('/organizations/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal(
    (await api('/organizations/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: { name: 'x' } })).status,
    404,
  );
});

test('memberships: one per principal and organization, with role and permissions, soft-removed and restored', async () => {
  const org = (await api('/organizations', { method: 'POST', body: { name: 'Team', slug: 'team' } })).body;
  const bot = (await api('/principals', { method: 'POST', body: { type: 'agent', name: 'team-bot', model_id: 'm' } }))
    .body;
  const added = await api(`/organizations/${org.id}/members`, {
    method: 'POST',
    body: { principal_id: bot.id, role: 'editor', permissions: ['dashboards:write'] },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.role, 'editor');
  assert.deepEqual(added.body.permissions, ['dashboards:write']);
  const withDefault = await api(`/organizations/${org.id}/members`, {
    method: 'POST',
    body: { principal_id: adminId },
  });
  assert.equal(withDefault.body.role, 'member');
  assert.equal(
    (await api(`/organizations/${org.id}/members`, { method: 'POST', body: { principal_id: bot.id, role: 'viewer' } }))
      .status,
    409,
    'one membership per pair',
  );
  assert.equal(
    (
      await api(`/organizations/${org.id}/members`, {
        method: 'POST',
        body: { principal_id: '00000000-0000-4000-8000-000000000000' },
      })
    ).status,
    404,
  );
  assert.equal(
    (
      await api('/organizations/00000000-0000-4000-8000-000000000000/members', {
        method: 'POST',
        body: { principal_id: bot.id },
      })
    ).status,
    404,
  );
  assert.equal(
    (
      await api(`/organizations/${org.id}/members`, {
        method: 'POST',
        body: { principal_id: bot.id, role: 'has spaces' },
      })
    ).status,
    400,
  );

  const changed = await api(`/organizations/${org.id}/members/${bot.id}`, {
    method: 'PATCH',
    body: { role: 'admin', permissions: null },
  });
  assert.equal(changed.body.role, 'admin');
  assert.equal(changed.body.permissions, null);
  const removed = await api(`/organizations/${org.id}/members/${bot.id}`, { method: 'DELETE' });
  assert.equal(removed.status, 200);
  assert.equal(removed.body.active, false);
  assert.equal((await api(`/organizations/${org.id}/members/${bot.id}`)).body.active, false, 'kept on record');
  const active = await api(`/organizations/${org.id}/members?active=true`);
  assert.deepEqual(
    active.body.items.map((m: any) => m.principal_id),
    [adminId],
  );
  assert.ok(
    !(await api(`/principals?organization_id=${org.id}`)).body.items.some((p: any) => p.id === bot.id),
    'a removed member is not listed in the organization',
  );
  const restored = await api(`/organizations/${org.id}/members/${bot.id}`, { method: 'PATCH', body: { active: true } });
  assert.equal(restored.body.active, true);
  assert.equal(restored.body.id, added.body.id, 'the same membership, reactivated');
  assert.equal((await api(`/organizations/${org.id}/members/${adminId}x`)).status, 400);
  assert.equal(
    (await api(`/organizations/${org.id}/members/00000000-0000-4000-8000-000000000000`, { method: 'DELETE' })).status,
    404,
  );

  await api(`/organizations/${org.id}`, { method: 'PATCH', body: { active: false } });
  const late = (await api('/principals', { method: 'POST', body: { type: 'agent', name: 'late-bot', model_id: 'm' } }))
    .body;
  assert.equal(
    (await api(`/organizations/${org.id}/members`, { method: 'POST', body: { principal_id: late.id } })).status,
    409,
    'a deactivated organization takes no new members',
  );
});
