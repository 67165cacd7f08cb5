import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { makeEvent } from './helpers.ts';

/**
 * The real service (`platform start ingest`) on real PostgreSQL, under load, killed with SIGKILL twice — once
 * while taking events, once while delivering a backlog to a slow webhook — and restarted each time. Every event
 * answered 202 must be stored exactly once and reach the webhook (repeats there are allowed: at least once).
 */

const ADMIN = 'crash-test-admin-token-0123456789';
let database: FreshDatabase;
let sql: pg.Client;
let receiver: WebhookReceiver;
const dataDir = tempDir();
const children = new Set<ChildProcess>();

before(async () => {
  database = await freshPostgres('crash');
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  receiver = await startWebhookReceiver();
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await sql.end();
  await receiver.close();
  await database.drop();
  dataDir.remove();
});

type Running = ServiceProcess;

/** `platform start ingest` through the shared harness (test/support/service-process.ts), forwarding on. */
async function startService(): Promise<Running> {
  const service = await startServiceProcess('ingest', {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'error',
    PLATFORM_SECRET_KEY: 'b'.repeat(64),
    INGEST_ADMIN_TOKEN: ADMIN,
    INGEST_FORWARDING_ENABLED: 'true',
    INGEST_FORWARDING_POLL_MS: '20',
    INGEST_FORWARDING_TIMEOUT_MS: '1000',
    INGEST_FORWARDING_LEASE_MS: '2000',
    INGEST_FORWARDING_RETRY_BASE_MS: '20',
    INGEST_FORWARDING_RETRY_MAX_MS: '200',
    // The webhook receiver listens on 127.0.0.1, refused by default as the internal network.
    INGEST_DESTINATION_ALLOW_HOSTS: '127.0.0.1',
  });
  children.add(service.child);
  service.child.on('exit', () => children.delete(service.child));
  return service;
}

async function kill(running: Running): Promise<void> {
  const exited = once(running.child, 'exit');
  running.child.kill('SIGKILL');
  await exited;
}

/** How fetch fails when the service is killed: refused while it is down, cut while a request is in flight. */
const CUT_BY_KILL = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function cutByKill(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  return (
    err instanceof TypeError &&
    (err.message === 'fetch failed' || err.message === 'terminated') &&
    typeof code === 'string' &&
    CUT_BY_KILL.has(code)
  );
}

/** Posts a batch: its answer, or undefined when the service was killed before answering (nothing acknowledged). */
async function postBatch(
  url: string,
  key: string,
  events: Record<string, unknown>[],
): Promise<{ status: number; retryAfter: string | null; body: string } | undefined> {
  try {
    const res = await call(`${url}/v1/events`, 'POST', { events }, { 'x-svc-api-key': key });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
  } catch (err) {
    if (cutByKill(err)) return undefined;
    throw err;
  }
}

async function call(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

test('SIGKILL under load: every event answered 202 is stored exactly once and reaches the webhook', {
  timeout: 90_000,
}, async (t) => {
  let service = await startService();
  const admin = { authorization: `Bearer ${ADMIN}` };
  const projectId = 'crash-project';
  assert.equal(
    (await call(`${service.url}/api/v1/projects`, 'POST', { name: 'crash', id: projectId }, admin)).status,
    201,
  );
  const key = (
    (await (
      await call(`${service.url}/api/v1/projects/${projectId}/keys`, 'POST', { name: 'load' }, admin)
    ).json()) as { key: string }
  ).key;
  const dest = (await (
    await call(
      `${service.url}/api/v1/projects/${projectId}/destinations`,
      'POST',
      { name: 'hook', kind: 'webhook', base_url: receiver.url },
      admin,
    )
  ).json()) as { secret: string };
  receiver.secret = dest.secret;

  const acknowledged = new Set<string>();
  let cut = 0;
  let unavailable = 0;
  let loading = true;
  const loader = async () => {
    while (loading) {
      const events = Array.from({ length: 100 }, () => makeEvent(projectId, { event_id: randomUUID() }));
      const answer = await postBatch(service.url, key, events);
      if (answer === undefined) {
        // The service is down or was killed mid-request: nothing of this request was acknowledged.
        cut++;
        await new Promise((r) => setTimeout(r, 20));
      } else if (answer.status === 503) {
        // The contract's "retry later": nothing of the batch is acknowledged. Any other refusal is a failure.
        assert.equal(answer.retryAfter, '5', answer.body);
        unavailable++;
      } else {
        assert.equal(answer.status, 202, answer.body);
        assert.equal((JSON.parse(answer.body) as { accepted: number }).accepted, 100);
        for (const e of events) acknowledged.add(e.event_id as string);
      }
    }
  };
  // Awaited once the kills are over; a loader that fails ends the test there with its own error.
  const loaders = Promise.all(Array.from({ length: 4 }, loader));
  loaders.catch(() => {
    loading = false;
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let ackedBeforeFirstKill: number;
  try {
    // 1. Killed while taking events (and delivering them as they come).
    await sleep(1500);
    await kill(service);
    ackedBeforeFirstKill = acknowledged.size;
    service = await startService();

    // 2. Killed while delivering a backlog to a slow receiver: some batches die in flight and come back after their lease.
    receiver.fail({ delayMs: 150 }, 30);
    await sleep(1500);
    await kill(service);
    service = await startService();
    await sleep(1000);
  } finally {
    loading = false;
    await loaders;
  }

  t.diagnostic(
    `acknowledged ${acknowledged.size} events (${ackedBeforeFirstKill} before the first kill), ${cut} requests refused or cut by a kill, ${unavailable} answered 503`,
  );
  assert.ok(
    ackedBeforeFirstKill > 0 && acknowledged.size > ackedBeforeFirstKill,
    'load ran before and after the kills',
  );

  const ids = [...acknowledged];
  const stored = await sql.query<{ n: string; distinct_ids: string }>(
    'SELECT count(*) AS n, count(DISTINCT event_id) AS distinct_ids FROM ingest.events WHERE event_id = ANY($1)',
    [ids],
  );
  assert.equal(Number(stored.rows[0]!.n), ids.length, 'every acknowledged event is stored');
  assert.equal(Number(stored.rows[0]!.distinct_ids), ids.length, 'and only once');
  const duplicates = await sql.query(
    'SELECT event_id FROM ingest.events GROUP BY project_id, event_id HAVING count(*) > 1',
  );
  assert.equal(duplicates.rowCount, 0);

  const deadline = Date.now() + 30_000;
  let missing = ids.filter((id) => !receiver.arrivals.has(id));
  while (missing.length > 0 && Date.now() < deadline) {
    await sleep(100);
    missing = missing.filter((id) => !receiver.arrivals.has(id));
  }
  assert.equal(missing.length, 0, `${missing.length} acknowledged events never reached the webhook`);
  // Events stored from requests cut by a kill (never acknowledged) are forwarded too: whatever is stored is delivered.
  const allStored = (await sql.query<{ event_id: string }>('SELECT event_id FROM ingest.events')).rows.map(
    (r) => r.event_id,
  );
  await (async () => {
    const until = Date.now() + 10_000;
    while (allStored.some((id) => !receiver.arrivals.has(id)) && Date.now() < until) await sleep(100);
  })();
  assert.deepEqual(
    allStored.filter((id) => !receiver.arrivals.has(id)),
    [],
  );
  const repeats = [...receiver.arrivals.values()].filter((n) => n > 1).length;
  t.diagnostic(`${allStored.length} stored, all delivered; ${repeats} arrived more than once (batches cut by a kill)`);
  assert.equal(receiver.badSignatures, 0);
  await kill(service);
});
