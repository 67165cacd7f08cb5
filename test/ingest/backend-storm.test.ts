import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertSurvivesBackendStorm, startStormTarget, type StormTarget } from '../support/backend-storm.ts';
import { makeEvent } from './helpers.ts';

const ADMIN = 'storm-test-admin-token-0123456789';
let target: StormTarget;

before(async () => {
  target = await startStormTarget('ingest', (url) => ({
    DATABASE_URL: url,
    INGEST_ADMIN_TOKEN: ADMIN,
    INGEST_RETRY_AFTER_SECONDS: '2',
  }));
});

after(async () => {
  await target?.close();
});

async function call(path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${target.service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
}

test('terminated database backends under load: the process lives, answers 503 with Retry-After meanwhile, and recovers alone', {
  timeout: 120_000,
}, async () => {
  const admin = { authorization: `Bearer ${ADMIN}` };
  assert.equal((await call('/api/v1/projects', { name: 'storm', id: 'storm' }, admin)).status, 201);
  const key = ((await (await call('/api/v1/projects/storm/keys', { name: 'load' }, admin)).json()) as { key: string })
    .key;
  let n = 0;
  const result = await assertSurvivesBackendStorm({
    service: target.service,
    databaseUrl: target.database.url,
    // Events and the admin API: the group committer's transactions and plain pooled queries.
    request: () =>
      n++ % 4 === 3
        ? fetch(`${target.service.url}/api/v1/projects`, { headers: admin, signal: AbortSignal.timeout(20_000) })
        : call(
            '/v1/events',
            { events: Array.from({ length: 20 }, () => makeEvent('storm', { event_id: randomUUID() })) },
            { 'x-svc-api-key': key },
          ),
    normal: (res) => res.status === 202 || res.status === 200,
  });
  assert.ok(result.unavailable > 0, `some requests met a dropped connection (${JSON.stringify(result)})`);
});
