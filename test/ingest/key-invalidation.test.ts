import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { App } from '../../src/kit/app.ts';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { ingestCommand } from '../../src/ingest/cli.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { connectRedis } from '../../src/kit/redis.ts';
import { refusedEverywhere } from '../support/refused-everywhere.ts';
import { tempDir } from '../support/tmp.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// A key cache far longer than the test: only the invalidation can explain a revoked key refused at once.
const env = { REDIS_URL, INGEST_KEY_CACHE_SECONDS: '300' };
let a: IngestHarness;
let b: App;
let listener: Redis;
const dataDir = tempDir();

before(async () => {
  a = await startIngest(env, 'keyinval');
  b = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: a.database.url,
      DATA_DIR: dataDir.path,
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    }),
  );
  listener = await connectRedis(REDIS_URL);
  await listener.subscribe('platform:invalidate:ingest');
});
after(async () => {
  listener?.disconnect();
  await b?.close();
  await a?.close();
  dataDir.remove();
});

const send = (app: App, key: string, projectId: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: { events: [makeEvent(projectId)] },
  });

test('two instances on one database and Redis: a key revoked through one is refused by the other at once', async () => {
  const { projectId, key, keyId } = await a.project();
  assert.equal((await send(a.app, key, projectId)).statusCode, 202);
  assert.equal((await send(b, key, projectId)).statusCode, 202, 'instance b has looked the key up and cached it');

  const published = once(listener, 'message');
  const revoked = await a.admin('DELETE', `/api/v1/projects/${projectId}/keys/${keyId}`);
  assert.equal(revoked.statusCode, 200);
  assert.equal((await send(a.app, key, projectId)).statusCode, 401, 'the instance that revoked it refuses it at once');

  await published;
  await refusedEverywhere([b], async (app) => (await send(app, key, projectId)).statusCode, {
    accepted: 202,
    refused: 401,
  });
  const other = await a.project();
  assert.equal((await send(b, other.key, other.projectId)).statusCode, 202, 'keys that were not revoked keep working');
});

test('a key revoked by `platform ingest keys revoke` is refused by every instance at once', async () => {
  const { projectId, key, keyId } = await a.project();
  for (const app of [a.app, b]) assert.equal((await send(app, key, projectId)).statusCode, 202, 'cached by each');

  const out: string[] = [];
  const err: string[] = [];
  const config = loadIngestConfig({
    DATABASE_URL: a.database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const published = once(listener, 'message');
  const code = await ingestCommand(['keys', 'revoke', keyId], config, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 0, err.join('\n'));
  assert.deepEqual(
    out,
    [`revoked key ${keyId} of project ${projectId}`],
    'announced to every instance: no wait to mention',
  );

  await published;
  await refusedEverywhere([a.app, b], async (app) => (await send(app, key, projectId)).statusCode, {
    accepted: 202,
    refused: 401,
  });
});
