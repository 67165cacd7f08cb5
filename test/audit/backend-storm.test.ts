import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { assertSurvivesBackendStorm, startStormTarget, type StormTarget } from '../support/backend-storm.ts';
import { FAST_AUDITS, page, serveSite, type TestSite } from './support.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
let target: StormTarget;
let site: TestSite;

before(async () => {
  site = await serveSite({ '/': page('Storm', '<p>A page to audit.</p>') });
  // One worker, so the queue's claims, lease renewals and completions meet the storm too (one Chromium).
  target = await startStormTarget('audit', (url) => ({
    ...FAST_AUDITS,
    DATABASE_URL: url,
    AUDIT_CONCURRENCY: '1',
    AUDIT_MAX_QUEUED_PER_KEY: '100000',
  }));
});

after(async () => {
  await target?.close();
  await site?.close();
});

async function waitForJob(
  call: (method: string, path: string) => Promise<Response>,
  id: string,
  statuses: string[],
): Promise<Record<string, unknown>> {
  for (;;) {
    const job = (await (await call('GET', `/api/v1/audits/${id}`)).json()) as Record<string, unknown>;
    if (statuses.includes(String(job.status))) return job;
    // The API offers no push: poll (the test's own timeout bounds the wait).
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('terminated database backends under load: the process lives, answers 503 with Retry-After meanwhile, and recovers alone', {
  timeout: 180_000,
}, async () => {
  const created = spawnSync(process.execPath, [CLI, 'audit', 'keys', 'create', '--name', 'storm', '--json'], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...target.env },
    encoding: 'utf8',
  });
  assert.equal(created.status, 0, created.stderr);
  const { key } = JSON.parse(created.stdout) as { key: string };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${target.service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
  const first = await call('POST', '/api/v1/audits', { url: `${site.origin}/` });
  assert.equal(first.status, 202);
  const firstId = ((await first.json()) as { id: string }).id;
  let n = 0;
  const result = await assertSurvivesBackendStorm({
    service: target.service,
    databaseUrl: target.database.url,
    // Queueing jobs (a write), listing and reading them, and Document 3's health with its queue counts.
    request: () => {
      const i = n++ % 4;
      if (i === 0) return call('POST', '/api/v1/audits', { url: `${site.origin}/` });
      if (i === 1) return call('GET', '/api/v1/audits?limit=10');
      if (i === 2) return call('GET', `/api/v1/audits/${firstId}`);
      return fetch(`${target.service.url}/api/v1/health`, { signal: AbortSignal.timeout(20_000) });
    },
    normal: (res) => res.status === 200 || res.status === 202,
  });
  assert.ok(result.unavailable > 0, `some requests met a dropped connection (${JSON.stringify(result)})`);

  // The worker recovered too: a job queued after the storm is audited to the end.
  const later = await call('POST', '/api/v1/audits', { url: `${site.origin}/` });
  assert.equal(later.status, 202);
  const done = await waitForJob(call, ((await later.json()) as { id: string }).id, ['completed', 'failed']);
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  assert.ok(target.service.alive());
});
