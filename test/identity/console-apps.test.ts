import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { basic, form, managementApi, startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { codeFlow, refreshTokens } from '../support/code-flow.ts';

/**
 * What the console does to an application beyond registering it (src/identity/apps/manage-routes.ts): edit it, deactivate
 * and reactivate it, rotate its secret, read its recent token activity, and the scopes it may be allowed. Every change is
 * recorded in admin_changes.
 */
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const CALLBACK = 'http://localhost:8765/callback';
const PASSWORD = 'correct horse battery staple';

describe('application management for the console', () => {
  let server: Server;
  const api = managementApi(
    () => server.issuer,
    () => ADMIN_TOKEN,
  );
  const clientCredentials = (clientId: string, secret: string) =>
    form(
      `${server.issuer}/oauth/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(clientId, secret) },
    );
  // The app's own changes through the console's routes; its creation, recorded by the change log's hook
  // (admin-log/recorder.ts), is the setup of each test and is left out.
  const changesOf = async (id: string) =>
    (
      await server.runtime.db.query<Record<string, unknown>>(
        `SELECT actor_kind, action, target_type, target_id, before, after FROM admin_changes
          WHERE target_id = $1 AND action <> 'application.create' ORDER BY id`,
        [id],
      )
    ).rows;
  const newMachine = async (name: string) => {
    const made = await api('/applications', { method: 'POST', body: { name, app_type: 'machine' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return { app: made.body.application, secret: made.body.client_secret as string };
  };

  before(async () => {
    server = await startServer('idconsoleapps', { IDENTITY_ADMIN_TOKEN: ADMIN_TOKEN });
  });
  after(async () => server?.close());

  test('GET /scopes answers the scopes an app may be allowed', async () => {
    const r = await api('/scopes');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { scopes: server.runtime.scopes });
    assert.ok(r.body.scopes.includes('openid') && r.body.scopes.includes('admin'));
  });

  test('PATCH changes the settings given, recorded with the values before and after; the provider uses them at once', async () => {
    const { app, secret } = await newMachine('Reports');
    const before = await clientCredentials(app.client_id, secret);
    assert.equal(before.json.expires_in, 900);
    const r = await api(`/applications/${app.id}`, {
      method: 'PATCH',
      body: { name: '  Reports v2 ', description: 'Nightly', access_token_ttl: 120, allowed_scopes: ['admin'] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.name, 'Reports v2');
    assert.equal(r.body.description, 'Nightly');
    assert.equal(r.body.access_token_ttl, 120);
    assert.deepEqual(r.body.allowed_scopes, ['admin']);
    assert.equal(r.body.app_type, 'machine');
    const token = await clientCredentials(app.client_id, secret);
    assert.equal(token.status, 200, token.text);
    assert.equal(token.json.expires_in, 120);
    const principal = await api(`/principals/${app.principal_id}`);
    assert.equal(principal.body.display_name, 'Reports v2');
    assert.deepEqual(principal.body.allowed_scopes, ['admin']);
    assert.deepEqual(await changesOf(app.id), [
      {
        actor_kind: 'admin-token',
        action: 'application.update',
        target_type: 'application',
        target_id: app.id,
        before: { name: 'Reports', description: null, allowed_scopes: [], access_token_ttl: 900 },
        after: { name: 'Reports v2', description: 'Nightly', allowed_scopes: ['admin'], access_token_ttl: 120 },
      },
    ]);
    // The same values again change nothing and record nothing.
    const same = await api(`/applications/${app.id}`, { method: 'PATCH', body: { access_token_ttl: 120 } });
    assert.equal(same.status, 200);
    assert.equal((await changesOf(app.id)).length, 1);
  });

  test('PATCH refuses what a new app of its type would be refused, and unknown apps and fields', async () => {
    const { app } = await newMachine('Strict');
    const spa = await api('/applications', {
      method: 'POST',
      body: { name: 'Shop', app_type: 'spa', redirect_uris: ['https://shop.example/cb'] },
    });
    const cases: [string, unknown, number, RegExp][] = [
      [app.id, { redirect_uris: ['https://x.example/cb'] }, 400, /uses client credentials and takes no redirect URIs/],
      [app.id, { allowed_scopes: ['root'] }, 400, /^unknown scope root; known: /],
      [app.id, {}, 400, /must NOT have fewer than 1 properties/],
      [app.id, { app_type: 'web' }, 400, /must NOT have additional properties/],
      [app.id, { access_token_ttl: 0 }, 400, /access_token_ttl must be >= 1/],
      [app.id, { name: '   ' }, 400, /^name must not be empty$/],
      [spa.body.application.id, { redirect_uris: [] }, 400, /a spa app needs at least one redirect URI/],
      [spa.body.application.id, { redirect_uris: ['http://shop.example/cb'] }, 400, /must use https/],
      [spa.body.application.id, { resource_server: true }, 400, /is public: it cannot authenticate at introspection/],
      [randomUUID(), { name: 'Ghost' }, 404, /^no application /],
    ];
    for (const [id, body, status, message] of cases) {
      const r = await api(`/applications/${id}`, { method: 'PATCH', body });
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, message, JSON.stringify(body));
    }
    assert.deepEqual(await changesOf(app.id), []);
  });

  test('deactivate stops its tokens and its grant at once; activate brings it back; both recorded', async () => {
    const { app, secret } = await newMachine('Batch');
    const token = (await clientCredentials(app.client_id, secret)).json.access_token;
    const resource = await server.registerApp({ name: 'API', appType: 'service', resourceServer: true });
    const introspect = async () =>
      (
        await form(
          `${server.issuer}/oauth/introspect`,
          { token },
          { authorization: basic(resource.clientId, resource.secret!) },
        )
      ).json.active;
    assert.equal(await introspect(), true);
    const off = await api(`/applications/${app.id}/deactivate`, { method: 'POST' });
    assert.equal(off.status, 200);
    assert.equal(off.body.active, false);
    const refused = await clientCredentials(app.client_id, secret);
    assert.equal(refused.status, 401);
    assert.equal(refused.json.error, 'invalid_client');
    assert.equal(await introspect(), false);
    assert.equal((await api(`/principals/${app.principal_id}`)).body.active, false);
    // Twice is the same answer, recorded once.
    assert.equal((await api(`/applications/${app.id}/deactivate`, { method: 'POST' })).status, 200);
    const on = await api(`/applications/${app.id}/activate`, { method: 'POST' });
    assert.equal(on.body.active, true);
    assert.equal((await clientCredentials(app.client_id, secret)).status, 200);
    const changes = await changesOf(app.id);
    assert.deepEqual(
      changes.map((c) => [c.action, c.before, c.after]),
      [
        ['application.deactivate', { active: true }, { active: false }],
        ['application.activate', { active: false }, { active: true }],
      ],
    );
    assert.equal((await api(`/applications/${randomUUID()}/deactivate`, { method: 'POST' })).status, 404);
  });

  test('rotate: a new secret shown once; the previous ones revoked now, kept for a grace period, or left', async () => {
    const { app, secret: first } = await newMachine('Rotating');
    // Left as they are: both work.
    const kept = await api(`/applications/${app.id}/secrets/rotate`, { method: 'POST', body: {} });
    assert.equal(kept.status, 201, JSON.stringify(kept.body));
    const second = kept.body.secret.client_secret as string;
    assert.match(second, /^cs_/);
    assert.equal(kept.body.secret.secret_prefix, second.slice(0, 9));
    assert.deepEqual(
      kept.body.previous.map((s: { secret_prefix: string; expires_at: null }) => [s.secret_prefix, s.expires_at]),
      [[first.slice(0, 9), null]],
    );
    assert.equal((await clientCredentials(app.client_id, first)).status, 200);
    assert.equal((await clientCredentials(app.client_id, second)).status, 200);
    // A grace period: the older two expire within the hour and still work meanwhile.
    const graced = await fetch(`${server.issuer}/api/v1/applications/${app.id}/secrets/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ previous_expire_in: 3600 }),
    });
    assert.equal(graced.status, 201);
    assert.equal(graced.headers.get('cache-control'), 'no-store');
    const gracedBody = (await graced.json()) as any;
    const third = gracedBody.secret.client_secret as string;
    assert.equal(gracedBody.previous.length, 2);
    for (const s of gracedBody.previous) {
      const left = Date.parse(s.expires_at) - Date.now();
      assert.ok(left > 3500_000 && left <= 3600_000, s.expires_at);
      assert.equal(s.revoked, false);
    }
    assert.equal((await clientCredentials(app.client_id, second)).status, 200);
    // Now: the others are revoked as rotated, only the newest works.
    const now = await api(`/applications/${app.id}/secrets/rotate`, {
      method: 'POST',
      body: { previous_expire_in: 0 },
    });
    const fourth = now.body.secret.client_secret as string;
    assert.deepEqual(
      now.body.previous.map((s: { revoked: boolean; revoked_reason: string }) => [s.revoked, s.revoked_reason]),
      [
        [true, 'rotated'],
        [true, 'rotated'],
        [true, 'rotated'],
      ],
    );
    for (const old of [first, second, third]) assert.equal((await clientCredentials(app.client_id, old)).status, 401);
    assert.equal((await clientCredentials(app.client_id, fourth)).status, 200);
    const recorded = await changesOf(app.id);
    assert.deepEqual(
      recorded.map((c) => c.action),
      ['application.secret_rotate', 'application.secret_rotate', 'application.secret_rotate'],
    );
    assert.equal((recorded[2]!.after as { new_secret: string }).new_secret, fourth.slice(0, 9));
    assert.ok(!JSON.stringify(recorded).includes(fourth), 'the secret itself is never recorded');
    // A public app has none; a grace beyond 30 days is refused.
    const spa = await api('/applications', {
      method: 'POST',
      body: { name: 'Public', app_type: 'spa', redirect_uris: ['https://p.example/cb'] },
    });
    const refused = await api(`/applications/${spa.body.application.id}/secrets/rotate`, { method: 'POST', body: {} });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /is public and has no secrets/);
    const tooLong = await api(`/applications/${app.id}/secrets/rotate`, {
      method: 'POST',
      body: { previous_expire_in: 2_592_001 },
    });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.error.code, 'VALIDATION_ERROR');
  });

  test("activity: an app's tokens issued, refreshed and revoked, newest first, with grant and subject, a page at a time", async () => {
    const personId = await server.createHuman('petra@acme.example', PASSWORD);
    const spa = await server.registerApp({
      name: 'Portal',
      appType: 'spa',
      redirectUris: [CALLBACK],
      firstParty: true,
    });
    const none = await api(`/applications/${spa.id}/activity`);
    assert.deepEqual(none.body, { items: [], next: null });
    const got = await codeFlow(new TestBrowser(), {
      issuer: server.issuer,
      clientId: spa.clientId,
      redirectUri: CALLBACK,
      scope: 'openid profile offline_access',
      credentials: { email: 'petra@acme.example', password: PASSWORD },
    });
    assert.equal(got.status, 200, JSON.stringify(got.tokens));
    const refreshed = await refreshTokens(server.issuer, spa.clientId, got.tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.tokens));
    const live = await api(`/principals/${personId}/tokens`);
    const refresh = live.body.items.find((t: { kind: string }) => t.kind === 'refresh_token');
    assert.equal((await api(`/principals/${personId}/tokens/${refresh.id}`, { method: 'DELETE' })).status, 204);

    const all = await api(`/applications/${spa.id}/activity`);
    assert.equal(all.status, 200);
    const summary = all.body.items.map((e: any) => [e.event, e.token_kind, e.grant_type].join(' '));
    // A refresh writes its two tokens together: within a pair the order is the ids'.
    assert.deepEqual(summary.slice(4, 6).sort(), [
      'refreshed access_token refresh_token',
      'refreshed refresh_token refresh_token',
    ]);
    assert.deepEqual(summary.slice(6).sort(), [
      'issued access_token authorization_code',
      'issued refresh_token authorization_code',
    ]);
    // The refresh token's whole family is revoked with it: four revocations, the newest events.
    assert.deepEqual(
      all.body.items.slice(0, 4).map((e: any) => [e.event, e.reason]),
      Array(4).fill(['revoked', 'admin_revoked']),
    );
    for (const e of all.body.items) {
      assert.deepEqual(e.subject, {
        id: personId,
        type: 'human',
        identifier: 'petra@acme.example',
        display_name: 'petra@acme.example',
      });
      assert.ok(e.scopes.includes('openid'), JSON.stringify(e));
    }
    const times = all.body.items.map((e: any) => Date.parse(e.at));
    assert.deepEqual(
      times,
      [...times].sort((a: number, b: number) => b - a),
    );
    // Two events a page: four pages, the same events, none twice.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api(`/applications/${spa.id}/activity?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200);
      seen.push(...page.body.items.map((e: any) => `${e.event}:${e.token_id}`));
      cursor = page.body.next;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.body.items.map((e: any) => `${e.event}:${e.token_id}`),
    );

    // A machine's client-credentials tokens speak for the app itself.
    const { app, secret } = await newMachine('Crawler');
    await clientCredentials(app.client_id, secret);
    const machine = await api(`/applications/${app.id}/activity`);
    assert.deepEqual(
      machine.body.items.map((e: any) => [e.event, e.token_kind, e.grant_type, e.subject.id, e.subject.type]),
      [['issued', 'client_credentials', 'client_credentials', app.principal_id, 'application']],
    );
    // Refusals: no such app, a limit beyond 200, a cursor it did not give.
    assert.equal((await api(`/applications/${randomUUID()}/activity`)).status, 404);
    assert.equal((await api(`/applications/${spa.id}/activity?limit=201`)).status, 400);
    const bad = await api(`/applications/${spa.id}/activity?cursor=bm90LWEtY3Vyc29y`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^cursor is not one this list gave/);
  });

  test('every new route refuses a caller without the admin scope', async () => {
    const { app } = await newMachine('Guarded');
    for (const [method, path] of [
      ['GET', '/scopes'],
      ['PATCH', `/applications/${app.id}`],
      ['POST', `/applications/${app.id}/deactivate`],
      ['POST', `/applications/${app.id}/activate`],
      ['POST', `/applications/${app.id}/secrets/rotate`],
      ['GET', `/applications/${app.id}/activity`],
    ]) {
      const r = await fetch(`${server.issuer}/api/v1${path}`, {
        method,
        headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{"name":',
      });
      assert.equal(r.status, 401, `${method} ${path}`);
    }
  });
});
