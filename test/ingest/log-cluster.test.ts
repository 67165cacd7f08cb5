import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startIngest, type IngestHarness } from './helpers.ts';
import { assertRefused, events, logEnv, post, waitStored } from './log-helpers.ts';
import { startNatsCluster, type NatsCluster, type NatsNode } from './nats-cluster.ts';
import { waitFor } from '../support/wait.ts';

let cluster: NatsCluster | undefined;
let h: IngestHarness | undefined;
afterEach(async () => {
  await h?.close();
  await cluster?.stop();
  h = undefined;
  cluster = undefined;
});

/**
 * Sends batches from `clients` loops until `stop()`; every answer is a 202 (recorded) or the contract's 503 with
 * Retry-After (counted); anything else fails the test.
 */
function load(app: IngestHarness['app'], key: string, projectId: string, clients: number) {
  const acknowledged: string[] = [];
  let refused = 0;
  let running = true;
  let sent = 0;
  const loops = Array.from({ length: clients }, async (_, c) => {
    while (running) {
      const batch = events(projectId, 100, `c${c}-${sent++}-`);
      const res = await post(app, key, batch);
      if (res.statusCode === 202) {
        assert.equal(res.json().accepted, 100, res.body);
        for (const e of batch) acknowledged.push(e.event_id as string);
      } else {
        assertRefused(res);
        refused++;
        // A client waits before retrying (Retry-After); a short wait keeps the refusals countable.
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  return {
    acknowledged,
    refused: () => refused,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

test('a node of the cluster killed under load loses no acknowledged event, and the cluster goes on taking them', async () => {
  cluster = await startNatsCluster(3, 'lognode');
  await cluster.ready();
  h = await startIngest(logEnv(cluster.servers, { INGEST_COMMIT_TIMEOUT_SECONDS: '5' }), 'lognode');
  const { projectId, key } = await h.project();
  const traffic = load(h.app, key, projectId, 4);
  await waitFor('100 events acknowledged before the kill', () => traffic.acknowledged.length >= 100, 30_000);
  // The stream's leader: the node whose loss matters most (the others elect a new one).
  const nc = await connect({ servers: cluster.servers.split(',') });
  const leader = (await (await jetstreamManager(nc)).streams.info('INGEST_EVENTS')).cluster?.leader;
  await nc.close();
  const victim = cluster.nodes.find((n) => n.name === leader)!;
  assert.ok(victim, `leader ${leader}`);
  const beforeKill = traffic.acknowledged.length;
  await victim.kill();
  // The remaining two elect a new leader for the stream (a few seconds, answered 503 meanwhile), then take events again;
  // waited for rather than slept on, since an election on a loaded machine takes longer than on a quiet one.
  await waitFor(
    '100 events acknowledged after the kill: two of three nodes keep the stream',
    () => traffic.acknowledged.length - beforeKill >= 100,
    60_000,
  );
  await traffic.stop();
  const counts = await waitStored(h.sql, traffic.acknowledged, 120_000);
  const twice = [...counts].filter(([, n]) => n !== 1);
  assert.deepEqual(twice, [], 'each acknowledged event stored once');
  const dup = await h.sql.query(
    'SELECT count(*)::int AS n FROM (SELECT 1 FROM ingest.events GROUP BY project_id, event_id HAVING count(*) > 1) d',
  );
  assert.equal(dup.rows[0].n, 0, 'no event stored twice, acknowledged or not');
});

test('the whole cluster down: 503 with Retry-After and /ready 503, never a 202; back up, events are taken again', async () => {
  cluster = await startNatsCluster(3, 'logdown');
  await cluster.ready();
  h = await startIngest(logEnv(cluster.servers, { INGEST_COMMIT_TIMEOUT_SECONDS: '2' }), 'logdown');
  const { projectId, key } = await h.project();
  const first = events(projectId, 50, 'before-');
  assert.equal((await post(h.app, key, first)).statusCode, 202);
  await waitStored(
    h.sql,
    first.map((e) => e.event_id as string),
  );

  for (const node of cluster.nodes) await node.kill();
  for (let i = 0; i < 3; i++) assertRefused(await post(h.app, key, events(projectId, 20, `down${i}-`)));
  const ready = await h.app.inject({ method: 'GET', url: '/ready' });
  assert.equal(ready.statusCode, 503, ready.body);
  assert.deepEqual(ready.json(), { status: 'not ready' });

  for (const node of cluster.nodes) await node.start();
  await cluster.ready();
  const after = events(projectId, 50, 'after-');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await post(h.app, key, after);
    if (res.statusCode === 202) break;
    assertRefused(res);
    assert.ok(Date.now() < deadline, 'events taken again once the cluster is back');
    await new Promise((r) => setTimeout(r, 500));
  }
  const counts = await waitStored(
    h.sql,
    [...first, ...after].map((e) => e.event_id as string),
  );
  assert.ok([...counts.values()].every((n) => n === 1));
});

/**
 * Starts the service on `cluster` and resolves once it has sent a second request on `subject` (watched on the server at
 * `watchUrl`): its first was refused and the start is waiting, not failed. Fails if the start ends first. Resolves
 * with the start still under way, so the test can mend the cluster before awaiting it.
 */
async function startWaiting(
  cluster: NatsCluster,
  watchUrl: string,
  subject: string,
  label: string,
): Promise<{ starting: Promise<IngestHarness> }> {
  const watcher = await connect({ servers: watchUrl });
  const asks = watcher.subscribe(subject, { max: 2 });
  await watcher.flush();
  const retried = (async () => {
    let seen = 0;
    for await (const _ of asks) seen++;
    return seen === 2 ? 'retried' : `${seen} requests`;
  })();
  const starting = startIngest(logEnv(cluster.servers), label);
  const early = starting.then(
    (started) => {
      // Closed by afterEach, like every started service, when the assertion below fails.
      h = started;
      return 'started before the cluster could hold the stream';
    },
    (err: Error) => err.message,
  );
  try {
    assert.equal(await Promise.race([retried, early]), 'retried');
  } finally {
    // An open client reconnects for ever and would keep the test file from ending.
    await watcher.close();
  }
  return { starting };
}

/** The started service takes a batch (202) and stores it. */
async function takesEvents(started: IngestHarness, prefix: string): Promise<void> {
  const { projectId, key } = await started.project();
  const batch = events(projectId, 20, prefix);
  assert.equal((await post(started.app, key, batch)).statusCode, 202);
  await waitStored(
    started.sql,
    batch.map((e) => e.event_id as string),
  );
}

test('a start while a server of the cluster has not joined yet waits for it to place the stream, then takes events', async () => {
  cluster = await startNatsCluster(3, 'logjoin', 2);
  await cluster.ready();
  // Watched for a second request to create the stream: the first was refused for want of peers (two servers cannot
  // place three replicas).
  const { starting } = await startWaiting(
    cluster,
    cluster.nodes[0]!.url,
    '$JS.API.STREAM.CREATE.INGEST_EVENTS',
    'logjoin',
  );
  await cluster.nodes[2]!.start();
  h = await starting;
  await takesEvents(h, 'joined-');
});

test('a start while the cluster has lost its quorum (servers rebooting) waits for it to elect, then takes events', async () => {
  cluster = await startNatsCluster(3, 'logelect');
  await cluster.ready();
  // Two of three killed without a goodbye, as a reboot or a crash does: no leader can be elected, so JetStream's
  // requests time out (a server just killed does the same for the seconds the others take to elect).
  const [alive, first, second] = cluster.nodes as [NatsNode, NatsNode, NatsNode];
  await first.kill();
  await second.kill();
  const { starting } = await startWaiting(cluster, alive.url, '$JS.API.>', 'logelect');
  await first.start();
  h = await starting;
  await takesEvents(h, 'elected-');
});
