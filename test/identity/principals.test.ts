import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, basic, form, managementApi, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';

let server: Server;
let adminToken: string;
let resourceServer: { clientId: string; secret: string | undefined };
const admin = { email: 'root@example.com', password: 'a long admin passphrase' };
const dora = { email: 'dora@example.com', password: 'dora has a long password' };

async function tokenFor(who: { email: string; password: string }, scope: string) {
  const app = await server.registerApp({
    name: 'Console',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'email', 'admin'],
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
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  return (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier })).access_token;
}

const api = managementApi(
  () => server.issuer,
  () => adminToken,
);

const introspect = (token: string) =>
  form(
    `${server.issuer}/oauth/introspect`,
    { token },
    { authorization: basic(resourceServer.clientId, resourceServer.secret!) },
  );

before(async () => {
  server = await startServer('idprincipals', { IDENTITY_EXTRA_SCOPES: 'reports:read' });
  await server.createHuman(admin.email, admin.password, true);
  await server.createHuman(dora.email, dora.password);
  adminToken = await tokenFor(admin, 'openid email admin');
  resourceServer = await server.registerApp({
    name: 'API',
    appType: 'service',
    allowedScopes: [],
    resourceServer: true,
  });
});
after(async () => server?.close());

test('service and agent principals are created with their extension records', async () => {
  const svc = await api('/principals', {
    method: 'POST',
    body: {
      type: 'service',
      name: 'billing-worker',
      service_type: 'worker',
      description: 'Nightly billing',
      allowed_ips: ['10.0.0.0/8'],
      allowed_scopes: ['reports:read'],
    },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  assert.equal(svc.body.type, 'service');
  assert.equal(svc.body.identifier, 'billing-worker');
  assert.equal(svc.body.display_name, 'billing-worker');
  assert.deepEqual(svc.body.allowed_scopes, ['reports:read']);
  assert.deepEqual(svc.body.service, {
    service_type: 'worker',
    description: 'Nightly billing',
    last_used_at: null,
    allowed_ips: ['10.0.0.0/8'],
    created_by: null,
  });
  assert.equal(svc.body.human, undefined);
  assert.match(svc.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const agent = await api('/principals', {
    method: 'POST',
    body: {
      type: 'agent',
      name: 'triage-bot',
      model_id: 'claude-x',
      display_name: 'Triage bot',
      delegating_principal_id: svc.body.id,
    },
  });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  assert.equal(agent.body.agent.model_id, 'claude-x');
  assert.equal(agent.body.agent.max_token_lifetime, 3600, 'the document default');
  assert.equal(agent.body.agent.requires_confirmation, true);
  assert.equal(agent.body.agent.delegating_principal_id, svc.body.id);
  assert.deepEqual((await api(`/principals/${agent.body.id}`)).body, agent.body);

  const human = await api('/principals', { method: 'POST', body: { type: 'human', email: 'Eve@Example.com' } });
  assert.equal(human.body.human.email, 'eve@example.com');
  assert.equal(human.body.human.locale, 'en');
  assert.equal(human.body.human.timezone, 'UTC');
  const app = await api('/applications', {
    method: 'POST',
    body: { name: 'Cron', app_type: 'machine', allowed_scopes: [] },
  });
  const appPrincipal = await api(`/principals/${app.body.application.principal_id}`);
  assert.equal(appPrincipal.body.type, 'application');
  assert.equal(appPrincipal.body.application.client_id, app.body.application.client_id);
});

test('bad principals are refused: 400 for bad fields, 409 for a taken name, 404 for an unknown id', async () => {
  assert.equal(
    (await api('/principals', { method: 'POST', body: { type: 'service', name: 'dup-svc', service_type: 'worker' } }))
      .status,
    201,
  );
  const dup = await api('/principals', { method: 'POST', body: { type: 'agent', name: 'dup-svc', model_id: 'm' } });
  assert.equal(dup.status, 409);
  for (const body of [
    { type: 'agent', name: 'no-model' },
    { type: 'service', name: 'x', service_type: '' },
    { type: 'service', name: 'bad name!', service_type: 'worker' },
    { type: 'service', name: 'scoped', service_type: 'worker', allowed_scopes: ['made:up'] },
    { type: 'robot', name: 'r' },
    { type: 'application', name: 'a' },
    { type: 'agent', name: 'ttl', model_id: 'm', max_token_lifetime: 0 },
  ]) {
    const r = await api('/principals', { method: 'POST', body });
    assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  const ghost = await api('/principals', {
    method: 'POST',
    body: {
      type: 'agent',
      name: 'orphan',
      model_id: 'm',
      delegating_principal_id: '00000000-0000-4000-8000-000000000000',
    },
  });
  assert.equal(ghost.status, 400);
  assert.equal((await api('/principals/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await api('/principals/not-a-uuid')).status, 400);
  assert.equal(
    (await api('/principals/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: { display_name: 'x' } }))
      .status,
    404,
  );
  assert.equal(
    (await api('/principals/00000000-0000-4000-8000-000000000000/deactivate', { method: 'POST' })).status,
    404,
  );
});

test('principals are listed by type, active flag and organization, paged with a cursor', async () => {
  const org = await api('/organizations', { method: 'POST', body: { name: 'Listers', slug: 'listers' } });
  const made: { id: string }[] = [];
  for (const n of ['l1', 'l2', 'l3'])
    made.push(
      (
        await api('/principals', {
          method: 'POST',
          body: { type: 'service', name: `list-${n}`, service_type: 'worker', organization_id: org.body.id },
        })
      ).body,
    );
  const member = (
    await api('/principals', { method: 'POST', body: { type: 'agent', name: 'list-member', model_id: 'm' } })
  ).body;
  assert.equal(
    (await api(`/organizations/${org.body.id}/members`, { method: 'POST', body: { principal_id: member.id } })).status,
    201,
  );
  await api(`/principals/${made[2].id}/deactivate`, { method: 'POST' });

  const inOrg = await api(`/principals?organization_id=${org.body.id}`);
  assert.deepEqual(
    inOrg.body.items.map((p: any) => p.id).sort(),
    [...made.map((p) => p.id), member.id].sort(),
    'home organization or membership',
  );
  const activeInOrg = await api(`/principals?organization_id=${org.body.id}&active=true&type=service`);
  assert.deepEqual(activeInOrg.body.items.map((p: any) => p.identifier).sort(), ['list-l1', 'list-l2']);
  const inactive = await api('/principals?active=false');
  assert.ok(inactive.body.items.every((p: any) => p.active === false));
  assert.ok(inactive.body.items.some((p: any) => p.id === made[2].id));

  const seen = new Set<string>();
  let next: string | null = null;
  do {
    const page: any = await api(`/principals?type=service&limit=2${next ? `&cursor=${next}` : ''}`);
    assert.ok(page.body.items.length <= 2);
    for (const p of page.body.items) {
      assert.equal(p.type, 'service');
      assert.ok(!seen.has(p.id), 'no principal twice across pages');
      seen.add(p.id);
    }
    next = page.body.next;
  } while (next);
  assert.ok(made.every((p) => seen.has(p.id)));
  assert.equal((await api('/principals?type=robot')).status, 400);
  assert.equal((await api('/principals?limit=0')).status, 400);
});

test('a principal is updated; its type and identifier stay', async () => {
  const svc = (
    await api('/principals', { method: 'POST', body: { type: 'service', name: 'patched', service_type: 'worker' } })
  ).body;
  const r = await api(`/principals/${svc.id}`, {
    method: 'PATCH',
    body: { display_name: 'Patched worker', allowed_scopes: ['reports:read'], metadata: { team: 'ops' } },
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.display_name, 'Patched worker');
  assert.deepEqual(r.body.metadata, { team: 'ops' });
  assert.equal(r.body.identifier, 'patched');
  assert.equal((await api(`/principals/${svc.id}`, { method: 'PATCH', body: { identifier: 'renamed' } })).status, 400);
  assert.equal((await api(`/principals/${svc.id}`, { method: 'PATCH', body: {} })).status, 400);
  assert.equal(
    (await api(`/principals/${svc.id}`, { method: 'PATCH', body: { allowed_scopes: ['nope'] } })).status,
    400,
  );
});

test("a deactivated human's tokens stop at once and it cannot sign in; reactivation restores sign-in", async () => {
  const doraId = (await api('/principals?type=human')).body.items.find((p: any) => p.identifier === dora.email).id;
  const token = await tokenFor(dora, 'openid email');
  assert.equal((await introspect(token)).json.active, true);
  const off = await api(`/principals/${doraId}/deactivate`, { method: 'POST' });
  assert.equal(off.status, 200);
  assert.equal(off.body.active, false);
  assert.deepEqual((await introspect(token)).json, { active: false });
  await assert.rejects(
    tokenFor(dora, 'openid email'),
    /did not reach the callback/,
    'a deactivated human cannot sign in',
  );
  const on = await api(`/principals/${doraId}/activate`, { method: 'POST' });
  assert.equal(on.body.active, true);
  assert.equal((await introspect(await tokenFor(dora, 'openid email'))).json.active, true);
});

test("deactivating an application principal stops its app's client-credentials tokens", async () => {
  const app = (
    await api('/applications', { method: 'POST', body: { name: 'Batch', app_type: 'machine', allowed_scopes: [] } })
  ).body;
  const token = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(app.application.client_id, app.client_secret) },
    )
  ).json.access_token;
  assert.equal((await introspect(token)).json.active, true);
  await api(`/principals/${app.application.principal_id}/deactivate`, { method: 'POST' });
  assert.deepEqual((await introspect(token)).json, { active: false });
  const refused = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic(app.application.client_id, app.client_secret) },
  );
  assert.equal(refused.status, 401);
  assert.equal((await api(`/applications/${app.application.id}`)).body.active, false);
});
