import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertOneOutage, loopOutage } from '../support/loop-outage.ts';
import { DeliveryWorker } from '../../src/ingest/forwarding/delivery/worker.ts';
import { forwardingVariables } from '../../src/ingest/forwarding/config.ts';
import { readConfig } from '../../src/kit/config.ts';
import type { Database } from '../../src/kit/db.ts';
import type { ForwardingMetrics } from '../../src/ingest/forwarding/metrics.ts';
import { FAST_FORWARDING, waitFor } from './forwarding-helpers.ts';
import { makeEvent } from './helpers.ts';

const ADMIN = 'loop-outage-admin-token-0123456789';

/**
 * Forwarding's delivery worker through a database outage with a destination and events waiting for it, and no request
 * meanwhile: its polls and its destination's loop meet the outage, which is one error line and one line when it ends.
 */
test('a database outage met by the forwarding worker is one error line, and one line when it ends', {
  timeout: 120_000,
}, async () => {
  const pollMs = 100;
  // A receiver that takes its time, so a delivery is in flight when the database goes.
  let asked = 0;
  let received = 0;
  const receiver = createServer((req, res) => {
    asked++;
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        received++;
        res.writeHead(200).end('{}');
      }, 300),
    );
  });
  receiver.listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  const call = async (url: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${url}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as Record<string, any>;
  };
  try {
    const outage = await loopOutage(
      'ingest',
      (url) => ({
        DATABASE_URL: url,
        INGEST_ADMIN_TOKEN: ADMIN,
        ...FAST_FORWARDING,
        INGEST_FORWARDING_POLL_MS: String(pollMs),
      }),
      {
        downMs: 20 * pollMs,
        backMs: 20_000,
        before: async (service) => {
          const admin = { authorization: `Bearer ${ADMIN}` };
          await call(`${service}/api/v1/projects`, { name: 'shop', id: 'shop' }, admin);
          const { key } = await call(`${service}/api/v1/projects/shop/keys`, { name: 'k' }, admin);
          await call(
            `${service}/api/v1/projects/shop/destinations`,
            { name: 'hook', kind: 'webhook', base_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` },
            admin,
          );
          await call(
            `${service}/v1/events`,
            { events: [makeEvent('shop'), makeEvent('shop')] },
            { 'x-svc-api-key': key },
          );
          // The database goes while the batch is at the receiver: its settling meets the outage too.
          await waitFor('a delivery under way', () => asked > 0);
        },
      },
    );
    assertOneOutage(outage, 10);
    assert.ok(received >= 1, 'the destination answered a delivery');
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
});

/**
 * The worker's poll failing otherwise than by an outage is logged each time at error, by the kit's one rule
 * (kit/poll-loop.ts loopReport), as every other loop's; it was a warning of the worker's own copy of the rule.
 */
test("the forwarding worker's polls report through the kit's rule: an outage to the outage log, else an error line", async () => {
  const lines: { level: string; msg: string }[] = [];
  const log: any = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
    log[level] = (_obj: unknown, msg: string) => lines.push({ level, msg });
  log.child = () => log;
  const outage = { failures: 0, successes: 0 };
  let fail: Error = new Error('column d.not_before does not exist');
  const db = { query: async () => Promise.reject(fail) } as unknown as Database;
  const worker = new DeliveryWorker({
    db,
    secretKey: Buffer.alloc(32),
    config: { ...readConfig(forwardingVariables, {}), forwardingPollMs: 10 },
    metrics: {} as ForwardingMetrics,
    log,
    outage: { failed: () => outage.failures++, succeeded: () => outage.successes++, down: false },
  });
  worker.start();
  await waitFor('two polls', () => lines.length >= 2);
  fail = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  await waitFor('a poll in the outage', () => outage.failures >= 2);
  await worker.stop();
  assert.ok(lines.length >= 2);
  assert.deepEqual(
    new Set(lines.map((l) => `${l.level}: ${l.msg}`)),
    new Set(['error: forwarding: could not look for due work']),
  );
  assert.equal(outage.successes, 0);
});
