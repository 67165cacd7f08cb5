import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { assertSurvivesBackendStorm, startStormTarget, type StormTarget } from '../support/backend-storm.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
let target: StormTarget;

before(async () => {
  target = await startStormTarget('identity', (url) => ({
    IDENTITY_DATABASE_URL: url,
    IDENTITY_EXTRA_SCOPES: 'reports:read',
  }));
});

after(async () => {
  await target?.close();
});

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

test('terminated database backends under load: the process lives, answers 503 with Retry-After meanwhile, and recovers alone', {
  timeout: 120_000,
}, async () => {
  const created = spawnSync(
    process.execPath,
    [CLI, 'identity', 'apps', 'create', '--name', 'storm', '--type', 'machine', '--scope', 'reports:read'],
    {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...target.env },
      encoding: 'utf8',
    },
  );
  assert.equal(created.status, 0, created.stderr);
  const clientId = /client_id: (\S+)/.exec(created.stdout)![1]!;
  const secret = /client_secret \(shown once\): (\S+)/.exec(created.stdout)![1]!;
  const auth = basic(clientId, secret);
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${target.service.url}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(20_000),
    });
  const issued = await post('/oauth/token', { grant_type: 'client_credentials', scope: 'reports:read' });
  assert.equal(issued.status, 200);
  const token = ((await issued.json()) as { access_token: string }).access_token;
  let n = 0;
  const result = await assertSurvivesBackendStorm({
    service: target.service,
    databaseUrl: target.database.url,
    // Token issuance (a write) and introspection (a read), as resource servers and clients do.
    request: () =>
      n++ % 2 === 0
        ? post('/oauth/token', { grant_type: 'client_credentials', scope: 'reports:read' })
        : post('/oauth/introspect', { token }),
    normal: (res) => res.status === 200,
  });
  assert.ok(result.unavailable > 0, `some requests met a dropped connection (${JSON.stringify(result)})`);
  // Identity's own metrics beside the kit's.
  const metrics = await (await fetch(`${target.service.url}/metrics`)).text();
  assert.ok(
    Number(
      /^identity_token_requests_total\{grant_type="client_credentials",outcome="success"\} (\d+)$/m.exec(metrics)?.[1],
    ) > 0,
    'token requests counted',
  );
  assert.ok(
    Number(/^identity_tokens_issued_total\{kind="client_credentials"\} (\d+)$/m.exec(metrics)?.[1]) > 0,
    'issued tokens counted',
  );
  // Client-credentials tokens and introspections are answered by identity's fast routes (docs/identity.md), counted as their own routes.
  assert.match(
    metrics,
    /^http_requests_total\{method="POST",route="\/oauth\/token",status="200"\} [1-9]/m,
    'the OAuth routes are counted by the kit',
  );
});
