import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startIngest, type IngestHarness } from './helpers.ts';
import { events, logEnv, post } from './log-helpers.ts';
import { startNatsCluster, type NatsCluster } from './nats-cluster.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const TOTAL = 40_000;

let cluster: NatsCluster;
let h: IngestHarness;
const children: ChildProcess[] = [];

before(async () => {
  cluster = await startNatsCluster(3, 'logloader');
  await cluster.ready();
  h = await startIngest(logEnv(cluster.servers, { INGEST_JETSTREAM_LOADERS: '0' }), 'logloader');
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await h?.close();
  await cluster?.stop();
});

/** `platform ingest loader` in a process of its own, resolved once it says it is loading (and, with --port, where). */
async function loaderProcess(args: string[] = []): Promise<{ child: ChildProcess; url?: string; output(): string }> {
  const child = spawn(process.execPath, [CLI, 'ingest', 'loader', ...args], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: h.database.url,
      DATA_DIR: '/tmp/unused-ingest-loader',
      LOG_LEVEL: 'warn',
      ...logEnv(cluster.servers),
      // Batches of 1,000 (the least allowed): many of them, so the kill falls between two.
      INGEST_COMMIT_MAX_EVENTS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the loader did not start: ${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (/^loading stream INGEST_EVENTS \(consumer ingest-loader\) into PostgreSQL with 1 loader;/m.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the loader exited (${code}): ${output}`));
    });
  });
  return { child, url: /^ingest-loader (http:\S+)$/m.exec(output)?.[1], output: () => output };
}

async function stored(): Promise<{ n: number; distinct: number }> {
  const { rows } = await h.sql.query(
    'SELECT count(*)::int AS n, count(DISTINCT (project_id, event_id))::int AS distinct FROM ingest.events',
  );
  return rows[0];
}

async function consumerInfo() {
  const nc = await connect({ servers: cluster.servers.split(',') });
  try {
    return await (await jetstreamManager(nc)).consumers.info('INGEST_EVENTS', 'ingest-loader');
  } finally {
    await nc.close();
  }
}

test('a loader SIGKILLed in the middle loses nothing and stores nothing twice; the next loader gets its events again', async () => {
  const { projectId, key } = await h.project();
  for (let b = 0; b < TOTAL / 1000; b++) {
    const res = await post(h.app, key, events(projectId, 1000, `b${b}-`));
    assert.equal(res.statusCode, 202, res.body);
  }
  assert.equal((await stored()).n, 0);

  const first = await loaderProcess();
  let atKill = 0;
  for (;;) {
    atKill = (await stored()).n;
    if (atKill >= 1000) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  assert.ok(atKill < TOTAL, `the loader had stored ${atKill} of ${TOTAL} when killed`);
  // Events it had taken and not acknowledged: they come back after INGEST_JETSTREAM_ACK_WAIT_SECONDS (2 s here).
  const taken = await consumerInfo();
  assert.ok(taken.num_ack_pending > 0, `${taken.num_ack_pending} events taken and not acknowledged at the kill`);

  const second = await loaderProcess(['--port', '0']);
  assert.match(second.url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/, second.output());
  const deadline = Date.now() + 120_000;
  while ((await stored()).n < TOTAL) {
    assert.ok(Date.now() < deadline, `stored ${(await stored()).n} of ${TOTAL}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.deepEqual(await stored(), { n: TOTAL, distinct: TOTAL });
  const metrics = await (await fetch(`${second.url}/metrics`)).text();
  const redelivered = Number(/^ingest_loader_redeliveries_total (\d+)/m.exec(metrics)?.[1]);
  assert.ok(redelivered > 0, `${redelivered} events received again by the second loader`);
  const ready = (await (await fetch(`${second.url}/ready`)).json()) as { status: string };
  assert.equal(ready.status, 'ready');

  second.child.kill('SIGTERM');
  const [code] = await once(second.child, 'exit');
  assert.equal(code, 0, second.output());
  assert.match(second.output(), /SIGTERM: stopping \(storing what was taken\)/);
  const after = await consumerInfo();
  assert.equal(after.num_ack_pending, 0);
  assert.equal(after.num_pending, 0);
});
