import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { waitFor } from '../support/wait.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { logEnv, post, storedCounts, waitStored } from './log-helpers.ts';
import { startNatsCluster, type NatsCluster } from './nats-cluster.ts';

/**
 * Erasure with the log on (src/ingest/erasure, src/ingest/log): a suppressed user's events are dropped before they
 * are published, and an erasure is not completed while the stream still holds events acknowledged before it, which a
 * loader stores later: its last pass waits for them.
 */
let cluster: NatsCluster;
let h: IngestHarness;

before(async () => {
  cluster = await startNatsCluster(3, 'erasurelog');
  await cluster.ready();
  // The instance that takes the requests runs no loader: what it acknowledges waits in the stream.
  h = await startIngest(
    logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '0', INGEST_KEY_CACHE_SECONDS: '1' }),
    'erasurelog',
  );
});
after(async () => {
  await h?.close();
  await cluster?.stop();
});

test('with the log on, events acknowledged before an erasure are erased once loaded, and a suppressed user is never published', async () => {
  const { projectId, key } = await h.project();
  const at = new Date().toISOString();
  const event = (id: string, user: string) =>
    makeEvent(projectId, { event_id: id, 'user.id': user, 'event.timestamp': at });
  const early = [event('a-1', 'ann'), event('a-2', 'ann'), event('b-1', 'bob')];
  assert.deepEqual((await post(h.app, key, early)).json(), { accepted: 3, rejected: 0, errors: [] });

  const res = await h.admin('POST', `/api/v1/projects/${projectId}/erasures`, { user_id: 'ann', suppress: true });
  assert.equal(res.statusCode, 202, res.body);
  const id: string = res.json().id;
  const late = [event('a-3', 'ann'), event('b-2', 'bob')];
  assert.deepEqual((await post(h.app, key, late)).json(), { accepted: 2, rejected: 0, errors: [] });
  // Acknowledged whole, but only bob's is in the stream: ann's was dropped before it was published.
  await new Promise((r) => setTimeout(r, 1_100));
  assert.equal((await h.app.inject({ method: 'GET', url: '/ready' })).json().log.pending_events, 4);

  // Past the settling time (INGEST_KEY_CACHE_SECONDS + INGEST_COMMIT_TIMEOUT_SECONDS: 1 + 3 s), the stream still holds
  // ann's early events: the erasure waits for them.
  await new Promise((r) => setTimeout(r, 5_000));
  const waiting = await h.admin('GET', `/api/v1/projects/${projectId}/erasures/${id}`);
  assert.equal(waiting.json().status, 'running', waiting.body);

  // A loader stores the stream: ann's early events arrive in storage, and the erasure's last pass takes them.
  const loader = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: h.database.url,
      DATA_DIR: '/tmp/unused-ingest-log',
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      ...logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '1', INGEST_KEY_CACHE_SECONDS: '1' }),
    }),
  );
  try {
    await waitStored(h.sql, ['b-1', 'b-2']);
    const done = await waitFor(
      'the erasure completed',
      async () => {
        const now = (await h.admin('GET', `/api/v1/projects/${projectId}/erasures/${id}`)).json();
        return now.status === 'completed' ? now : undefined;
      },
      30_000,
    );
    assert.equal(done.deleted, 2, 'the two events acknowledged before the erasure');
    const counts = await storedCounts(h.sql, ['a-1', 'a-2', 'a-3', 'b-1', 'b-2']);
    assert.deepEqual(Object.fromEntries(counts), { 'b-1': 1, 'b-2': 1 });
  } finally {
    await loader.close();
  }
});
