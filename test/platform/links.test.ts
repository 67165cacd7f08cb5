import { test } from 'node:test';
import assert from 'node:assert/strict';
import { services } from '../../src/services.ts';
import { linkServices } from '../../src/platform/links.ts';
import type { IdentityConfig } from '../../src/identity/config.ts';
import type { DashboardConfig } from '../../src/dashboard/config.ts';

const ENV = {
  PLATFORM_SECRET_KEY: 'c'.repeat(64),
  DATA_DIR: '/nonexistent-onestart',
  IDENTITY_ISSUER: 'http://id.example:4000',
  DASHBOARD_PUBLIC_URL: 'https://dash.example/',
};

function load(names: string[], env: NodeJS.ProcessEnv = ENV) {
  return names.map((name) => ({ name, loaded: services.find((s) => s.name === name)!.load(env) }));
}

test('identity and the dashboard started together: a built-in public client and the provider platform', () => {
  const started = load(['identity', 'dashboard']);
  const links = linkServices(started);
  assert.deepEqual(links.wired, ['dashboard → identity']);
  const identity = started[0]!.loaded.config as IdentityConfig;
  const dashboard = started[1]!.loaded.config as DashboardConfig;
  const [client] = identity.links!.builtInClients;
  assert.equal(client!.client_id, 'platform-dashboard');
  assert.equal(client!.token_endpoint_auth_method, 'none', 'public: no secret to store');
  assert.deepEqual(client!.redirect_uris, ['https://dash.example/api/v1/auth/platform/callback']);
  assert.equal(client!.scope, 'openid email profile');
  assert.deepEqual(dashboard.links!.identity.provider, {
    id: 'platform',
    issuer: 'http://id.example:4000',
    clientId: 'platform-dashboard',
    name: 'the platform account',
  });
  assert.equal(dashboard.links!.identity.minPasswordLength, 12);
});

test('each started alone, or a dashboard whose operator configured platform, is left as configured', () => {
  for (const names of [['identity'], ['dashboard'], ['dashboard', 'audit', 'ingest']]) {
    const started = load(names);
    assert.deepEqual(linkServices(started).wired, [], names.join(' '));
    for (const s of started) assert.equal((s.loaded.config as { links?: unknown }).links, undefined);
  }
  const own = JSON.stringify([
    { id: 'platform', issuer: 'https://sso.example', clientId: 'mine', clientSecret: 's3cret' },
  ]);
  const started = load(['identity', 'dashboard'], { ...ENV, DASHBOARD_OIDC_PROVIDERS: own });
  assert.deepEqual(linkServices(started).wired, []);
  assert.equal((started[0]!.loaded.config as IdentityConfig).links, undefined);
  assert.equal((started[1]!.loaded.config as DashboardConfig).links, undefined);
});

test('the owner account and teammate links refuse to run before identity is built', async () => {
  const started = load(['identity', 'dashboard']);
  linkServices(started);
  const dashboard = started[1]!.loaded.config as DashboardConfig;
  await assert.rejects(
    async () =>
      dashboard.links!.identity.ensureOwnerAccount({ email: 'a@b.example', name: 'A', password: 'x'.repeat(12) }),
    /identity service is not running/,
  );
  await assert.rejects(
    async () => dashboard.links!.identity.inviteAccount({ email: 'a@b.example', name: 'A' }),
    /identity service is not running/,
    'nor the link of a person added later',
  );
});

test("the console's built-in client: public, first-party, every right's scope, refresh tokens that rotate", () => {
  const started = load(['identity', 'dashboard', 'audit', 'ingest'], { ...ENV, AUDIT_REQUIRED_SCOPE: 'audit:run' });
  assert.deepEqual(linkServices(started).wired, ['audit → identity', 'ingest → identity', 'dashboard → identity']);
  const identity = started[0]!.loaded.config as IdentityConfig;
  const console = identity.links!.builtInClients.find((c) => c.client_id === 'platform-console')!;
  assert.equal(console.token_endpoint_auth_method, 'none');
  assert.deepEqual(console.grant_types, ['authorization_code', 'refresh_token']);
  assert.deepEqual(console.redirect_uris, ['https://dash.example/console/callback']);
  assert.equal(console.scope, 'openid profile email offline_access admin audit:run ingest:admin');
  assert.equal(console.first_party, true);
  assert.equal(console.refresh_token_rotation, true);
  assert.deepEqual(
    identity.links!.consoleRights!.map((r) => [r.name, r.scope]),
    [
      ['identity', 'admin'],
      ['audits', 'audit:run'],
      ['events', 'ingest:admin'],
    ],
  );
  assert.deepEqual(identity.links!.corsOrigins, ['https://dash.example']);
  const dashboard = started[1]!.loaded.config as DashboardConfig;
  assert.deepEqual(
    dashboard.links!.console!.services.map((s) => s.section),
    ['identity', 'audits', 'events'],
  );
});

test('audit or ingest configured to introspect at an identity service of their own are left as configured', () => {
  const started = load(['identity', 'audit', 'ingest'], {
    ...ENV,
    AUDIT_IDENTITY_URL: 'https://sso.example',
    AUDIT_IDENTITY_CLIENT_ID: 'audit',
    AUDIT_IDENTITY_CLIENT_SECRET: 's3cret',
  });
  assert.deepEqual(linkServices(started).wired, ['ingest → identity']);
  assert.equal((started[1]!.loaded.config as { links?: unknown }).links, undefined);
  assert.deepEqual((started[2]!.loaded.config as { links?: { corsOrigins: string[] } }).links?.corsOrigins, []);
});
