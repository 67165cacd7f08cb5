import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { ConfigError } from '../../src/kit/config.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { StartupError } from '../../src/kit/start-errors.ts';
import { freePort } from '../support/free-port.ts';
import { ADMIN_TOKEN, startIngest, type IngestHarness } from './helpers.ts';
import { events, logEnv, metricValue, post, storedCounts, waitStored, waitStreamEmptied } from './log-helpers.ts';
import { startNatsCluster, type NatsCluster } from './nats-cluster.ts';

let cluster: NatsCluster;
let h: IngestHarness;

before(async () => {
  cluster = await startNatsCluster(3, 'logbasic');
  await cluster.ready();
  // The instance that takes the requests runs no loader: what it acknowledges waits in the stream.
  h = await startIngest(logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '0' }), 'logbasic');
});
after(async () => {
  await h?.close();
  await cluster?.stop();
});

test('with the log on, the 202 comes from the stream: storage catches up through a loader, /ready and /metrics say how far behind it is, and a retry is stored once', async () => {
  const { projectId, key } = await h.project();
  const batches = [events(projectId, 300, 'a'), events(projectId, 300, 'b'), events(projectId, 400, 'c')];
  for (const batch of batches) {
    const res = await post(h.app, key, batch);
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { accepted: batch.length, rejected: 0, errors: [] });
  }
  const ids = batches.flat().map((e) => e.event_id as string);
  // Acknowledged, not stored: the stream holds them all.
  assert.equal((await storedCounts(h.sql, ids)).size, 0);
  await new Promise((r) => setTimeout(r, 1_100));
  const ready = await h.app.inject({ method: 'GET', url: '/ready' });
  assert.equal(ready.statusCode, 200, ready.body);
  assert.equal(ready.json().status, 'ready');
  assert.equal(ready.json().log.pending_events, 1000);
  assert.ok(ready.json().log.lag_seconds >= 1, ready.body);
  assert.equal(await metricValue(h.app, 'ingest_log_pending_events'), 1000);
  assert.ok((await metricValue(h.app, 'ingest_log_lag_seconds'))! >= 1);

  // A loader starts (another ingest process with INGEST_JETSTREAM_LOADERS=1) and stores every event once.
  const loader = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: h.database.url,
      DATA_DIR: '/tmp/unused-ingest-log',
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      ...logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '1' }),
    }),
  );
  try {
    const counts = await waitStored(h.sql, ids);
    assert.ok([...counts.values()].every((n) => n === 1));
    assert.equal(await metricValue(loader, 'ingest_loader_events_total'), 1000);
    await waitStreamEmptied(h.app);
    assert.deepEqual((await h.app.inject({ method: 'GET', url: '/ready' })).json(), {
      status: 'ready',
      log: { pending_events: 0, lag_seconds: 0 },
    });

    // The first batch again (a client's retry): the stream recognises every id, storage holds each once.
    const again = await post(h.app, key, batches[0]!);
    assert.equal(again.statusCode, 202, again.body);
    assert.equal(again.json().accepted, 300);
    assert.equal(await metricValue(h.app, 'ingest_log_duplicates_total'), 300);
    const stored = await h.sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE project_id = $1', [projectId]);
    assert.equal(stored.rows[0].n, 1000);
  } finally {
    await loader.close();
  }
});

test('a message in the stream that is not an event row is dropped (counted, logged), and the events around it are stored', async () => {
  const { projectId, key } = await h.project();
  const good = events(projectId, 20, 'around-');
  assert.equal((await post(h.app, key, good.slice(0, 10))).statusCode, 202);
  const nc = await connect({ servers: cluster.servers.split(',') });
  try {
    await jetstream(nc).publish('ingest.events', new TextEncoder().encode('not an event'));
  } finally {
    await nc.close();
  }
  assert.equal((await post(h.app, key, good.slice(10))).statusCode, 202);
  const loader = await buildIngestApp(
    loadIngestConfig({
      DATABASE_URL: h.database.url,
      DATA_DIR: '/tmp/unused-ingest-log',
      LOG_LEVEL: 'silent',
      ...logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '1' }),
    }),
  );
  try {
    await waitStored(
      h.sql,
      good.map((e) => e.event_id as string),
    );
    const failures = (await loader.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(failures, /^ingest_loader_failures_total\{kind="malformed"\} 1$/m);
    // The stream is emptied, the malformed message included.
    await waitStreamEmptied(h.app);
  } finally {
    await loader.close();
  }
});

test('the last events of a burst are stored at once, not after the ack wait (the loader does not wait for events that will not come)', async () => {
  // A stream and consumer of their own, with an ack wait far longer than loading takes: events held back until their
  // redelivery would show as a wait of minutes.
  const env = {
    DATABASE_URL: h.database.url,
    DATA_DIR: '/tmp/unused-ingest-log',
    LOG_LEVEL: 'silent',
    INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
    ...logEnv(cluster.servers, {
      INGEST_JETSTREAM_STREAM: 'BURST',
      INGEST_JETSTREAM_SUBJECT: 'ingest.burst',
      INGEST_JETSTREAM_ACK_WAIT_SECONDS: '300',
      INGEST_COMMIT_TIMEOUT_SECONDS: '20',
    }),
  };
  const acceptor = await buildIngestApp(loadIngestConfig({ ...env, INGEST_JETSTREAM_LOADERS: '0' }));
  let loader: Awaited<ReturnType<typeof buildIngestApp>> | undefined;
  try {
    const { projectId, key } = await h.project();
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, c) => {
        for (let b = c; b < 60; b += 4) {
          const batch = events(projectId, 1000, `burst${b}-`);
          const res = await post(acceptor, key, batch);
          assert.equal(res.statusCode, 202, res.body);
          for (const e of batch) ids.push(e.event_id as string);
        }
      }),
    );
    loader = await buildIngestApp(loadIngestConfig({ ...env, INGEST_JETSTREAM_LOADERS: '1' }));
    await waitStored(h.sql, ids, 90_000);
    assert.equal(await metricValue(loader, 'ingest_loader_redeliveries_total'), 0);
  } finally {
    await loader?.close();
    await acceptor.close();
  }
});

test('rejected events are answered in the 202 and never reach the stream', async () => {
  const { projectId, key } = await h.project();
  const [good] = events(projectId, 1);
  const res = await post(h.app, key, [good!, { event_id: 'x', project_id: projectId }]);
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), { accepted: 1, rejected: 1, errors: [{ index: 1, error: 'session.id: required' }] });
});

test('a cluster that cannot be reached stops the start with the reason, and never shows a password of the address', async () => {
  const port = await freePort();
  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    DATA_DIR: '/tmp/unused-ingest-log',
    LOG_LEVEL: 'silent',
    INGEST_JETSTREAM_SERVERS: `nats://loader:s3cret-pass@127.0.0.1:${port}`,
  });
  await assert.rejects(
    buildIngestApp(config),
    (err: Error) =>
      err instanceof StartupError &&
      err.message.startsWith(`cannot reach NATS at nats://127.0.0.1:${port}: `) &&
      !err.message.includes('s3cret'),
  );
});

test('a stream of 5 replicas on a cluster of 3 stops the start naming the setting', async () => {
  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    DATA_DIR: '/tmp/unused-ingest-log',
    LOG_LEVEL: 'silent',
    INGEST_JETSTREAM_SERVERS: cluster.servers,
    INGEST_JETSTREAM_STREAM: 'WIDE',
    INGEST_JETSTREAM_SUBJECT: 'ingest.wide',
    INGEST_JETSTREAM_REPLICAS: '5',
    INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS: '1',
  });
  await assert.rejects(
    buildIngestApp(config),
    (err: Error) =>
      err instanceof StartupError &&
      /^cannot create stream WIDE: .*INGEST_JETSTREAM_REPLICAS=5 needs a cluster of at least that many JetStream servers, all running: tried for 1 s \(INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS\)/.test(
        err.message,
      ),
  );
});

test('bad log settings are refused at start, naming the variable', async () => {
  const start = (env: Record<string, string>) =>
    buildIngestApp(
      loadIngestConfig({ DATABASE_URL: h.database.url, DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent', ...env }),
    );
  await assert.rejects(
    start({ INGEST_JETSTREAM_SERVERS: 'http://127.0.0.1:4222' }),
    (err: Error) =>
      err instanceof ConfigError &&
      err.message ===
        'INGEST_JETSTREAM_SERVERS: "http://127.0.0.1:4222" is not a NATS server address (nats://host:port or host:port)',
  );
  await assert.rejects(
    start({ INGEST_JETSTREAM_SERVERS: cluster.servers, INGEST_JETSTREAM_SUBJECT: 'ingest.>' }),
    (err: Error) =>
      err instanceof ConfigError && /^INGEST_JETSTREAM_SUBJECT must be dot-separated tokens/.test(err.message),
  );
  await assert.rejects(
    start({ INGEST_JETSTREAM_SERVERS: cluster.servers, INGEST_JETSTREAM_STREAM: 'a.b' }),
    (err: Error) =>
      err instanceof ConfigError &&
      err.message === 'INGEST_JETSTREAM_STREAM must be letters, digits, "_" and "-" only, got "a.b"',
  );
  assert.throws(
    () => loadIngestConfig({ DATABASE_URL: h.database.url, INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS: '-1' }),
    (err: Error) => err instanceof ConfigError && /^INGEST_JETSTREAM_PLACEMENT_WAIT_SECONDS\b/.test(err.message),
  );
});
