import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, basic, form, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { runIdentityCommand } from './run-command.ts';

let server: Server;
let adminToken: string;
let console: { client_id: string; secret: string };
const admin = { email: 'root@example.com', password: 'a long admin passphrase' };

const cli = (...args: string[]) => runIdentityCommand(server.env, args);

async function tokenFor(clientId: string, secret: string, who: { email: string; password: string }, scope: string) {
  const config = await oidc.discovery(new URL(server.issuer), clientId, secret, oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  return {
    config,
    tokens: await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    }),
  };
}

function api(
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({
    status: r.status,
    body: (r.status === 204 ? undefined : await r.json()) as any,
    headers: r.headers,
  }));
}

before(async () => {
  server = await startServer('idmgmt');
  const made = await cli('admin', 'create', '--email', admin.email, '--password', admin.password);
  assert.equal(made.code, 0, made.err.join('\n'));
  const app = await cli(
    'apps',
    'create',
    '--name',
    'Admin Console',
    '--type',
    'web',
    '--redirect-uri',
    CALLBACK,
    '--scope',
    'openid email admin',
    '--first-party',
  );
  assert.equal(app.code, 0, app.err.join('\n'));
  const clientId = /client_id: (\S+)/.exec(app.out.join('\n'))![1]!;
  const secret = /client_secret \(shown once\): (\S+)/.exec(app.out.join('\n'))![1]!;
  console = { client_id: clientId, secret };
  adminToken = (await tokenFor(clientId, secret, admin, 'openid email admin')).tokens.access_token;
});
after(async () => server?.close());

test("the CLI registers a resource server, which may introspect other apps' tokens", async () => {
  const made = await cli('apps', 'create', '--name', 'Inventory API', '--type', 'service', '--resource-server');
  assert.equal(made.code, 0, made.err.join('\n'));
  assert.match(made.out.join('\n'), /resource server: may introspect tokens issued to other apps/);
  const rs = {
    id: /client_id: (\S+)/.exec(made.out.join('\n'))![1]!,
    secret: /client_secret \(shown once\): (\S+)/.exec(made.out.join('\n'))![1]!,
  };
  const intro = await form(
    `${server.issuer}/oauth/introspect`,
    { token: adminToken },
    { authorization: basic(rs.id, rs.secret) },
  );
  assert.equal(intro.json.active, true);
  assert.equal(intro.json.username, admin.email);
  const plain = await cli('apps', 'create', '--name', 'Plain', '--type', 'service');
  const other = {
    id: /client_id: (\S+)/.exec(plain.out.join('\n'))![1]!,
    secret: /client_secret \(shown once\): (\S+)/.exec(plain.out.join('\n'))![1]!,
  };
  assert.deepEqual(
    (
      await form(
        `${server.issuer}/oauth/introspect`,
        { token: adminToken },
        { authorization: basic(other.id, other.secret) },
      )
    ).json,
    { active: false },
  );
  const publicRs = await cli(
    'apps',
    'create',
    '--name',
    'x',
    '--type',
    'spa',
    '--redirect-uri',
    'https://spa.example/cb',
    '--resource-server',
  );
  assert.equal(publicRs.code, 2);
  assert.match(publicRs.err.join('\n'), /cannot be a resource server/);
});

test('the CLI refuses bad input with a usage message', async () => {
  const noEmail = await cli('admin', 'create');
  assert.equal(noEmail.code, 2);
  assert.match(noEmail.err.join('\n'), /--email is required/);
  const badType = await cli('apps', 'create', '--name', 'x', '--type', 'toaster');
  assert.equal(badType.code, 2);
  const badUri = await cli('apps', 'create', '--name', 'x', '--type', 'web', '--redirect-uri', 'not a url');
  assert.equal(badUri.code, 2);
  assert.match(badUri.err.join('\n'), /redirect URI/);
  const exported = await cli('apps', 'create', '--name', "Ops' robot", '--type', 'machine', '--export');
  assert.equal(exported.code, 0, exported.err.join('\n'));
  assert.equal(exported.out.length, 3);
  assert.match(exported.out[0]!, /^export APP_ID='[0-9a-f-]{36}'$/);
  const exportedId = /^export CLIENT_ID='(\S+)'$/.exec(exported.out[1]!)![1]!;
  const exportedSecret = /^export CLIENT_SECRET='(cs_\S+)'$/.exec(exported.out[2]!)![1]!;
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(exportedId, exportedSecret) },
      )
    ).status,
    200,
  );
  const unknown = await cli('frobnicate');
  assert.equal(unknown.code, 2);
  const generated = await cli('admin', 'create', '--email', 'second-admin@example.com');
  assert.equal(generated.code, 0);
  assert.match(generated.out.join('\n'), /password \(shown once\): \S{20,}/);
});

test('the management API needs an admin-scoped token of a platform admin', async () => {
  assert.equal((await api('/principals')).status, 401);
  assert.equal((await api('/principals', { token: 'garbage' })).status, 401);
  const bob = { email: 'bob@example.com', password: 'bob has a long password' };
  await server.createHuman(bob.email, bob.password);
  const bobToken = (await tokenFor(console.client_id, console.secret, bob, 'openid email admin')).tokens.access_token;
  const asBob = await api('/principals', { token: bobToken });
  assert.equal(asBob.status, 403, 'a non-admin never receives the admin scope');
  assert.equal(asBob.body.error.code, 'FORBIDDEN');
  assert.match(String(asBob.headers.get('www-authenticate')), /error="insufficient_scope"/);
  const machine = await server.registerApp({ name: 'M', appType: 'machine', allowedScopes: [] });
  const cc = await form(
    `${server.issuer}/oauth/token`,
    { grant_type: 'client_credentials' },
    { authorization: basic(machine.clientId, machine.secret!) },
  );
  assert.equal(
    (await api('/principals', { token: cc.json.access_token })).status,
    401,
    'a client-credentials token is not an access token of a person',
  );
  const noAdminScope = (await tokenFor(console.client_id, console.secret, admin, 'openid email')).tokens.access_token;
  assert.equal((await api('/principals', { token: noAdminScope })).status, 403);
});

test("principals: create, list, read; bad input is a 400/409 in the platform's error shape", async () => {
  const created = await api('/principals', {
    method: 'POST',
    token: adminToken,
    body: { type: 'human', email: 'Carol@Example.com', password: 'carol password is long', given_name: 'Carol' },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.email, 'carol@example.com');
  assert.equal(created.body.type, 'human');
  assert.equal(created.body.display_name, 'Carol');
  assert.equal(created.body.password, undefined);
  const dup = await api('/principals', {
    method: 'POST',
    token: adminToken,
    body: { type: 'human', email: 'carol@example.com' },
  });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.error.code, 'CONFLICT');
  assert.match(dup.body.error.message, /already exists/);
  const short = await api('/principals', {
    method: 'POST',
    token: adminToken,
    body: { type: 'human', email: 'd@example.com', password: 'short' },
  });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.code, 'VALIDATION_ERROR');
  const badJson = await fetch(`${server.issuer}/api/v1/principals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: '{"type":',
  });
  assert.equal(badJson.status, 400);
  assert.equal(((await badJson.json()) as any).error.code, 'VALIDATION_ERROR');
  const extra = await api('/principals', {
    method: 'POST',
    token: adminToken,
    body: { type: 'human', email: 'e@example.com', role: 'god' },
  });
  assert.equal(extra.status, 400, 'unknown fields are refused');
  const badEmail = await api('/principals', {
    method: 'POST',
    token: adminToken,
    body: { type: 'human', email: 'not-an-email' },
  });
  assert.equal(badEmail.status, 400);
  const list = await api('/principals?type=human', { token: adminToken });
  assert.equal(list.status, 200);
  assert.ok(list.body.items.some((p: any) => p.email === 'carol@example.com'));
  assert.ok(list.body.items.every((p: any) => p.type === 'human'));
  const one = await api(`/principals/${created.body.id}`, { token: adminToken });
  assert.equal(one.body.identifier, 'carol@example.com');
  assert.match(one.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'timestamps are ISO 8601 in UTC');
  const missing = await api('/principals/00000000-0000-0000-0000-000000000000', { token: adminToken });
  assert.deepEqual(missing.body, {
    error: { code: 'NOT_FOUND', message: 'no principal 00000000-0000-0000-0000-000000000000' },
  });
  assert.equal((await api('/principals/00000000-0000-0000-0000-000000000000', { token: adminToken })).status, 404);
  assert.equal((await api('/principals/not-a-uuid', { token: adminToken })).status, 400);
  const hash = await server.runtime.db.query<{ secret_hash: string }>(
    "SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password'",
    [created.body.id],
  );
  assert.match(hash.rows[0]!.secret_hash, /^scrypt\$/);
});

test('applications and their secrets: created, listed by prefix only, rotated, revoked', async () => {
  const created = await api('/applications', {
    method: 'POST',
    token: adminToken,
    body: { name: 'Billing', app_type: 'machine', allowed_scopes: [] },
  });
  assert.equal(created.status, 201);
  const app = created.body.application;
  assert.deepEqual(app.allowed_grants, ['client_credentials']);
  assert.equal(app.access_token_ttl, 900);
  assert.equal(app.refresh_token_ttl, 604800);
  assert.equal(app.refresh_token_rotation, true);
  assert.match(created.body.client_secret, /^cs_[A-Za-z0-9_-]{43}$/);
  const first = created.body.client_secret as string;

  const spa = await api('/applications', {
    method: 'POST',
    token: adminToken,
    body: { name: 'SPA', app_type: 'spa', redirect_uris: ['https://spa.example/cb'] },
  });
  assert.equal(spa.status, 201);
  assert.equal(spa.body.client_secret, undefined, 'public apps get no secret');
  assert.equal(spa.body.application.public, true);
  assert.equal(
    (await api(`/applications/${spa.body.application.id}/secrets`, { method: 'POST', token: adminToken })).status,
    400,
  );

  assert.equal(
    (await api('/applications', { method: 'POST', token: adminToken, body: { name: 'x', app_type: 'web' } })).status,
    400,
    'a web app needs a redirect URI',
  );
  assert.equal(
    (
      await api('/applications', {
        method: 'POST',
        token: adminToken,
        body: { name: 'x', app_type: 'web', redirect_uris: ['http://evil.example/cb'] },
      })
    ).status,
    400,
    'http only for localhost',
  );
  assert.equal(
    (
      await api('/applications', {
        method: 'POST',
        token: adminToken,
        body: { name: 'x', app_type: 'machine', allowed_scopes: ['nope'] },
      })
    ).body.error.code,
    'VALIDATION_ERROR',
  );
  assert.equal(
    (await api('/applications', { method: 'POST', token: adminToken, body: { name: 'x', app_type: 'robot' } })).status,
    400,
  );

  const rotated = await api(`/applications/${app.id}/secrets`, { method: 'POST', token: adminToken });
  assert.equal(rotated.status, 201);
  const second = rotated.body.client_secret as string;
  const secrets = await api(`/applications/${app.id}/secrets`, { token: adminToken });
  assert.equal(secrets.body.items.length, 2);
  const text = JSON.stringify(secrets.body);
  assert.ok(!text.includes(first) && !text.includes(second), 'secrets are never shown again');
  assert.ok(
    secrets.body.items.every((s: any) => first.startsWith(s.secret_prefix) || second.startsWith(s.secret_prefix)),
  );

  for (const s of [first, second]) {
    assert.equal(
      (
        await form(
          `${server.issuer}/oauth/token`,
          { grant_type: 'client_credentials' },
          { authorization: basic(app.client_id, s) },
        )
      ).status,
      200,
    );
  }
  const firstId = secrets.body.items.find((s: any) => first.startsWith(s.secret_prefix)).id;
  // With the JSON content type some clients put on every request, and no body.
  assert.equal(
    (
      await api(`/applications/${app.id}/secrets/${firstId}`, {
        method: 'DELETE',
        token: adminToken,
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    204,
  );
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(app.client_id, first) },
      )
    ).status,
    401,
  );
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(app.client_id, second) },
      )
    ).status,
    200,
  );

  assert.equal(app.resource_server, false, 'an app is not a resource server unless registered as one');
  const rs = await api('/applications', {
    method: 'POST',
    token: adminToken,
    body: { name: 'Reports API', app_type: 'service', allowed_scopes: [], resource_server: true },
  });
  assert.equal(rs.status, 201);
  assert.equal(rs.body.application.resource_server, true);
  const publicRs = await api('/applications', {
    method: 'POST',
    token: adminToken,
    body: { name: 'x', app_type: 'spa', redirect_uris: ['https://spa.example/cb'], resource_server: true },
  });
  assert.equal(publicRs.status, 400, 'a public app cannot authenticate at introspection');
  const token = (
    await form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(app.client_id, second) },
    )
  ).json.access_token;
  assert.equal(
    (
      await form(
        `${server.issuer}/oauth/introspect`,
        { token },
        { authorization: basic(rs.body.application.client_id, rs.body.client_secret) },
      )
    ).json.active,
    true,
  );

  const listed = await api('/applications', { token: adminToken });
  assert.ok(listed.body.items.some((a: any) => a.id === app.id));
});

test('lists are pages of {items, next}: a cursor walks every item once, and a forged cursor is a 400', async () => {
  for (let i = 0; i < 5; i++) await server.createHuman(`pager-${i}@example.com`, 'a long enough password');
  const all = await api('/principals?type=human&limit=500', { token: adminToken });
  assert.equal(all.body.next, null, 'the last page points nowhere');
  const seen: string[] = [];
  let next: string | null = null;
  let pages = 0;
  do {
    const page: any = await api(`/principals?type=human&limit=2${next ? `&cursor=${encodeURIComponent(next)}` : ''}`, {
      token: adminToken,
    });
    assert.equal(page.status, 200);
    assert.ok(page.body.items.length <= 2);
    seen.push(...page.body.items.map((p: any) => p.id));
    next = page.body.next;
    pages++;
  } while (next);
  assert.deepEqual(
    seen,
    all.body.items.map((p: any) => p.id),
  );
  assert.equal(pages, Math.ceil(all.body.items.length / 2));
  const forged = await api('/principals?cursor=bm90LWpzb24', { token: adminToken });
  assert.equal(forged.status, 400);
  assert.equal(forged.body.error.code, 'VALIDATION_ERROR');
  assert.equal((await api('/principals?limit=0', { token: adminToken })).status, 400);
  assert.equal(
    (await api('/applications?after=x', { token: adminToken })).status,
    400,
    'unknown query parameters are refused',
  );
});

test("a principal's tokens and consents: listed and revoked", async () => {
  const dave = { email: 'dave@example.com', password: 'dave has a long password' };
  const daveId = await server.createHuman(dave.email, dave.password);
  const third = await server.registerApp({ name: 'Photos', appType: 'web', redirectUris: [CALLBACK] });
  const { config, tokens } = await tokenFor(third.clientId, third.secret!, dave, 'openid email');

  const listed = await api(`/principals/${daveId}/tokens`, { token: adminToken });
  assert.equal(listed.status, 200);
  const kinds = listed.body.items.map((t: any) => t.kind).sort();
  const firstOfTwo = await api(`/principals/${daveId}/tokens?limit=1`, { token: adminToken });
  const secondOfTwo = await api(`/principals/${daveId}/tokens?limit=1&cursor=${firstOfTwo.body.next}`, {
    token: adminToken,
  });
  assert.deepEqual(
    [...firstOfTwo.body.items, ...secondOfTwo.body.items].map((t: any) => t.id),
    listed.body.items.map((t: any) => t.id),
  );
  assert.equal(secondOfTwo.body.next, null);
  assert.deepEqual(kinds, ['access_token', 'refresh_token']);
  assert.ok(!JSON.stringify(listed.body).includes(tokens.access_token));
  const access = listed.body.items.find((t: any) => t.kind === 'access_token');
  assert.equal(
    (
      await api(`/principals/${daveId}/tokens/${access.id}`, {
        method: 'DELETE',
        token: adminToken,
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    204,
  );
  assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, false);
  assert.equal(
    (await oidc.tokenIntrospection(config, tokens.refresh_token!)).active,
    true,
    'revoking an access token leaves its refresh token',
  );
  assert.equal(
    (await api(`/principals/${daveId}/tokens/${access.id}`, { method: 'DELETE', token: adminToken })).status,
    404,
  );

  const consents = await api(`/principals/${daveId}/consents`, { token: adminToken });
  assert.equal(consents.body.items.length, 1);
  assert.equal(consents.body.next, null);
  assert.equal(consents.body.items[0].client_id, third.clientId);
  assert.deepEqual([...consents.body.items[0].scopes].sort(), ['email', 'openid']);
  assert.equal(
    (await api(`/principals/${daveId}/consents/${third.id}`, { method: 'DELETE', token: adminToken })).status,
    204,
  );
  assert.equal(
    (await oidc.tokenIntrospection(config, tokens.refresh_token!)).active,
    false,
    "revoking the consent revokes the app's tokens",
  );
  const after = await api(`/principals/${daveId}/consents`, { token: adminToken });
  assert.equal(after.body.items[0].revoked, true);
  assert.equal(after.body.items[0].revoked_reason, 'admin_revoked');
});

test('/openapi.json documents the management API', async () => {
  const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as any;
  for (const path of [
    '/api/v1/principals',
    '/api/v1/applications',
    '/api/v1/applications/{id}/secrets',
    '/api/v1/principals/{id}/tokens',
    '/api/v1/principals/{id}/consents/{appId}',
  ]) {
    assert.ok(doc.paths[path], `${path} is documented`);
  }
  assert.ok(doc.components.securitySchemes.adminToken);
});

test('keys rotate --immediately: the new key signs, the old one stays published until it expires', async () => {
  const before = (await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as any;
  assert.equal(before.keys.length, 1);
  const oldKid = before.keys[0].kid;
  const oldIdToken = (await tokenFor(console.client_id, console.secret, admin, 'openid')).tokens.id_token!;

  const r = await cli('keys', 'rotate', '--immediately');
  assert.equal(r.code, 0, r.err.join('\n'));
  assert.equal(await server.runtime.reloadKeys(), true);
  const afterJwks = (await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as any;
  assert.equal(afterJwks.keys.length, 2);
  const newKid = afterJwks.keys[0].kid;
  assert.notEqual(newKid, oldKid);
  assert.ok(
    afterJwks.keys.some((k: any) => k.kid === oldKid),
    'the old public key is still published',
  );

  const { tokens } = await tokenFor(console.client_id, console.secret, admin, 'openid');
  const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
  assert.equal(header.kid, newKid, 'the new key signs');
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const jwks = createRemoteJWKSet(new URL(`${server.issuer}/.well-known/jwks.json`));
  await jwtVerify(oldIdToken, jwks, { issuer: server.issuer });

  await server.runtime.db.query("UPDATE signing_keys SET publish_until = now() - interval '1 second' WHERE kid = $1", [
    oldKid,
  ]);
  assert.equal(await server.runtime.reloadKeys(), true);
  const later = (await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as any;
  assert.deepEqual(
    later.keys.map((k: any) => k.kid),
    [newKid],
    'an expired retired key leaves the JWKS',
  );
});
