import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { assertSurvivesBackendStorm, startStormTarget, type StormTarget } from '../support/backend-storm.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
let target: StormTarget;

before(async () => {
  // Limits far above the load, so every answer is the ordinary one or a 503 (never a 429).
  target = await startStormTarget('dashboard', (url) => ({
    DATABASE_URL: url,
    DASHBOARD_RATE_LIMITS: 'free=1000000,pro=1000000,enterprise=1000000',
  }));
});

after(async () => {
  await target?.close();
});

/** `platform dashboard ...` as an operator runs it, with `--json` output. */
function platform(...args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [CLI, 'dashboard', ...args, '--json'], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...target.env },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

test('terminated database backends under load: the process lives, answers 503 with Retry-After meanwhile, and recovers alone', {
  timeout: 120_000,
}, async () => {
  platform('tenants', 'create', '--slug', 'storm', '--name', 'Storm', '--plan', 'enterprise');
  platform('users', 'create', '--tenant', 'storm', '--email', 'ed@storm.example', '--name', 'Ed', '--role', 'editor');
  const { accessToken } = platform('token', '--tenant', 'storm', '--email', 'ed@storm.example') as {
    accessToken: string;
  };
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${target.service.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
  const definition = { layout: { type: 'grid', columns: 12, rowHeight: 30 }, dataSources: [], widgets: [] };
  assert.equal((await call('POST', '/api/v1/dashboards', { slug: 'first', title: 'First', definition })).status, 201);
  let n = 0;
  const result = await assertSurvivesBackendStorm({
    service: target.service,
    databaseUrl: target.database.url,
    // Every request checks its token against its session in the database; creating a dashboard writes
    // it and its first version in one transaction; listing reads.
    request: () => {
      const i = n++;
      if (i % 3 === 0)
        return call('POST', '/api/v1/dashboards', { slug: `d-${i}`, title: `Dashboard ${i}`, definition });
      if (i % 3 === 1) return call('GET', '/api/v1/dashboards');
      return call('GET', '/api/v1/auth/me');
    },
    normal: (res) => res.status === 200 || res.status === 201,
  });
  assert.ok(result.unavailable > 0, `some requests met a dropped connection (${JSON.stringify(result)})`);
});
