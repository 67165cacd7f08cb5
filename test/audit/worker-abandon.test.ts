import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { freshPostgres } from '../support/postgres.ts';
import { openDatabase } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { AUDIT_MIGRATIONS } from '../../src/audit/app.ts';
import { createMetrics } from '../../src/audit/metrics.ts';
import { JobWorker } from '../../src/audit/jobs/worker.ts';
import { cancelJob, createJob, getJob } from '../../src/audit/jobs/store.ts';
import { resolveConfig } from '../../src/audit/request/resolve.ts';
import { connect } from 'node:net';
import { runAudit } from '../../src/audit/engine/auditor.ts';
import type { BrowserHost } from '../../src/audit/engine/browser-host.ts';
import { createAddressPolicy } from '../../src/kit/outbound/address-policy.ts';

// An engine step that never returns and never looks at its abort signal (a browser call that hangs, seen in CI: a job
// cancelled mid-visit kept its worker, renewing its lease, and held the service's shutdown). The worker must let go of
// such a job when it is cancelled or when the worker stops.
test('a running audit whose engine never returns still ends when cancelled, and the worker still stops', async () => {
  const database = await freshPostgres('audit_abandon');
  const db = await openDatabase({ url: database.url, dataDir: '/tmp/unused', schema: 'audit' });
  try {
    await migrate(db, AUDIT_MIGRATIONS);
    const signals: AbortSignal[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = new JobWorker({
      db,
      log: pino({ level: 'silent' }),
      metrics: createMetrics(),
      concurrency: 1,
      leaseSeconds: 30,
      maxAttempts: 1,
      pollMs: 50,
      run: (_url, _config, signal) => {
        signals.push(signal!);
        started();
        return new Promise(() => {});
      },
    });
    const config = resolveConfig({}, { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 2, maxPages: 5 });
    const first = await createJob(db, { owner: 'test', url: 'https://example.test/', config, maxQueued: 10 });
    worker.start();
    await running;
    assert.equal((await getJob(db, 'test', first.id))?.status, 'running');
    await cancelJob(db, 'test', first.id);
    worker.cancelLocal(first.id);
    assert.equal(signals[0]!.aborted, true);

    // The slot is free again: the next job is taken although the first one's engine never returned.
    const second = await createJob(db, { owner: 'test', url: 'https://example.test/2', config, maxQueued: 10 });
    worker.wake();
    for (let i = 0; i < 100 && signals.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(signals.length, 2, 'the second job started');
    assert.equal((await getJob(db, 'test', first.id))?.status, 'cancelled');

    // Stopping gives the hung second job back to the queue instead of waiting for it forever.
    await worker.stop();
    assert.equal((await getJob(db, 'test', second.id))?.status, 'pending');
  } finally {
    await db.close();
    await database.drop();
  }
});

// The same hang one level down: a browser that never answers for a new context. An aborted audit must still give back
// its egress proxy's port at once (seen in CI: a proxy left listening kept a test process alive after its last test).
test('an aborted audit closes its egress proxy even while a browser call never returns', async () => {
  let proxyServer = '';
  let asked!: () => void;
  const askedForContext = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const host = {
    newContext(server: string) {
      proxyServer = server;
      asked();
      return new Promise<never>(() => {});
    },
  } as unknown as BrowserHost;
  const controller = new AbortController();
  const config = resolveConfig({}, { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 2, maxPages: 5 });
  const policy = createAddressPolicy(['127.0.0.1']);
  void runAudit(
    'http://127.0.0.1:9/',
    config,
    {
      host,
      policy,
      timing: { timeoutMs: 5_000, networkIdleMs: 0, settleMs: 0 },
      pageConcurrency: 1,
      maxElementsPerRule: 100,
    },
    controller.signal,
  ).catch(() => {});
  await askedForContext;
  const { port } = new URL(proxyServer);
  const reachable = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  assert.equal(await reachable(), true, 'the proxy listens while the audit runs');
  controller.abort();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await reachable(), false, "the aborted audit's proxy no longer listens");
});
