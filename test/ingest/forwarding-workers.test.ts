import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomToken } from '../../src/kit/crypto.ts';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { buildIngestApp, INGEST_MIGRATIONS } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { claim } from '../../src/ingest/forwarding/delivery/outbox.ts';
import type { App } from '../../src/kit/app.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { ADMIN_TOKEN, makeEvent } from './helpers.ts';
import { FAST_FORWARDING, waitFor } from './forwarding-helpers.ts';

let database: FreshDatabase;
const dataDir = tempDir();
const apps: App[] = [];
const receivers: WebhookReceiver[] = [];

before(async () => {
  database = await freshPostgres('fwdworkers');
});

after(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await Promise.all(receivers.map((r) => r.close()));
  await database.drop();
  dataDir.remove();
});

const SECRET_KEY = 'a'.repeat(64);

/** An ingest instance on the shared database (several may run at once, like instances behind a load balancer). */
async function instance(env: Record<string, string> = FAST_FORWARDING): Promise<App> {
  const config = loadIngestConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'silent',
    INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
    PLATFORM_SECRET_KEY: SECRET_KEY,
    ...env,
  });
  const app = await buildIngestApp(config);
  await app.ready();
  apps.push(app);
  return app;
}

async function close(app: App): Promise<void> {
  if (!apps.includes(app)) return;
  apps.splice(apps.indexOf(app), 1);
  await app.close();
}

// Instances share one database: one left running by a failed test would deliver another test's events.
afterEach(async () => {
  await Promise.all([...apps].map(close));
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

async function admin(app: App, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const res = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

async function project(app: App): Promise<{ projectId: string; key: string }> {
  const projectId = `p_${randomToken(6)}`;
  await admin(app, 'POST', '/api/v1/projects', { name: projectId, id: projectId });
  const key = await admin(app, 'POST', `/api/v1/projects/${projectId}/keys`, { name: 'k' });
  return { projectId, key: key.key };
}

async function webhookDestination(app: App, projectId: string, r: WebhookReceiver, name = 'hook'): Promise<string> {
  const d = await admin(app, 'POST', `/api/v1/projects/${projectId}/destinations`, {
    name,
    kind: 'webhook',
    base_url: r.url,
  });
  r.secret = d.secret;
  return d.id;
}

async function send(app: App, key: string, events: Record<string, unknown>[]): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events }),
  });
  assert.equal(res.statusCode, 202, res.body);
}

async function delivered(app: App, destinationId: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text
    .split('\n')
    .find((l) => l.startsWith('ingest_forwarding_delivered_total{') && l.includes(`destination="${destinationId}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('claims from two connections at once never overlap: FOR UPDATE SKIP LOCKED and leases', async () => {
  const opened: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ url: database.url, dataDir: '', schema: 'ingest', poolSize: 4 });
    opened.push(db);
    return db;
  };
  try {
    const a = await open();
    await migrate(a, INGEST_MIGRATIONS);
    const b = await open();
    const projectId = `p_${randomToken(6)}`;
    await a.query('INSERT INTO projects (id, name) VALUES ($1, $1)', [projectId]);
    await a.query(
      `INSERT INTO destinations (id, project_id, name, kind, base_url, credentials_sealed) VALUES ($1, $2, 'x', 'webhook', 'http://127.0.0.1:9/', 'v1.x.y.z')`,
      [`d_${projectId}`, projectId],
    );
    await a.query(
      `INSERT INTO events (project_id, event_id, event_type, event_ts, session_id, body)
       SELECT $1, 'e' || g, 'custom', now(), 's', '{}'::jsonb FROM generate_series(1, 1000) g`,
      [projectId],
    );
    const claims = await Promise.all(
      Array.from({ length: 16 }, (_, i) => claim(i % 2 ? a : b, `d_${projectId}`, 100, 60_000, `token-${i}`)),
    );
    const ids = claims.flat().map((e) => e.id);
    assert.equal(ids.length, 1000, 'every entry claimed by someone');
    assert.equal(new Set(ids).size, 1000, 'no entry claimed twice');
    assert.deepEqual(await claim(a, `d_${projectId}`, 100, 60_000, 'late'), [], 'leased entries are not claimable');
    await a.query(`UPDATE outbox SET leased_until = now() - interval '1 second' WHERE destination_id = $1`, [
      `d_${projectId}`,
    ]);
    const again = await claim(b, `d_${projectId}`, 2000, 60_000, 'after-expiry');
    assert.equal(again.length, 1000, 'entries of an expired lease can be claimed again');
    assert.ok(again.every((e) => e.attempts === 2));
  } finally {
    await Promise.all(opened.map((d) => d.close()));
  }
});

test('two instances on one database deliver every event exactly once between them', async () => {
  // What is under test is that a batch is claimed by one instance only. A request that times out after the receiver
  // took it is sent again by design (at least once); a generous timeout keeps that path out of this test on a busy machine.
  const patient = { ...FAST_FORWARDING, INGEST_FORWARDING_TIMEOUT_MS: '5000', INGEST_FORWARDING_LEASE_MS: '10000' };
  const a = await instance(patient);
  const b = await instance(patient);
  const r = await receiver();
  const { projectId, key } = await project(a);
  const dest = await webhookDestination(a, projectId, r);
  // A receiver that takes a while, so each instance finds new work while the other is sending.
  r.fail({ delayMs: 60 }, 40);
  const ids: string[] = [];
  for (let round = 0; round < 20; round++) {
    const events = Array.from({ length: 50 }, () => makeEvent(projectId));
    ids.push(...events.map((e) => e.event_id as string));
    await send(round % 2 ? a : b, key, events);
    await new Promise((res) => setTimeout(res, 15));
  }
  await waitFor('all 1000 events delivered', () => ids.every((id) => r.arrivals.has(id)), 20_000);
  await new Promise((res) => setTimeout(res, 200));
  const repeated = ids.filter((id) => r.arrivals.get(id) !== 1);
  assert.deepEqual(repeated, [], 'no event was sent twice');
  const byA = await delivered(a, dest);
  const byB = await delivered(b, dest);
  assert.equal(byA + byB, 1000);
  assert.ok(byA > 0 && byB > 0, `both instances delivered (a ${byA}, b ${byB})`);
  await close(a);
  await close(b);
});

test('a destination that hangs does not hold back another destination of the same project, nor ingestion', async () => {
  const app = await instance();
  const hung = await receiver();
  const healthy = await receiver();
  const { projectId, key } = await project(app);
  const hungId = await webhookDestination(app, projectId, hung, 'hung');
  const healthyId = await webhookDestination(app, projectId, healthy, 'healthy');
  hung.fail({ delayMs: 10_000 }, 100);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const events = Array.from({ length: 20 }, () => makeEvent(projectId));
    ids.push(...events.map((e) => e.event_id as string));
    await send(app, key, events);
  }
  await waitFor('healthy destination has everything', () => ids.every((id) => healthy.arrivals.has(id)));
  // Its worker runs beside the healthy one's: its first attempt may come after the healthy destination has everything.
  await waitFor('the hung destination was tried', () => hung.received.length >= 1);
  assert.equal(await delivered(app, hungId), 0, 'the hung destination has delivered nothing yet');
  await waitFor('healthy deliveries recorded', async () => (await delivered(app, healthyId)) === 100);
  await close(app);
});

test('with the global switch off events queue up; a restarted instance with it on delivers them (the outbox survives restarts)', async () => {
  const off = await instance({ ...FAST_FORWARDING, INGEST_FORWARDING_ENABLED: 'false' });
  const r = await receiver();
  const { projectId, key } = await project(off);
  const dest = await webhookDestination(off, projectId, r);
  const events = Array.from({ length: 30 }, () => makeEvent(projectId));
  await send(off, key, events);
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(r.received.length, 0, 'nothing is sent while forwarding is off');
  assert.equal((await admin(off, 'GET', `/api/v1/destinations/${dest}`)).pending, 30);
  await close(off);

  const on = await instance();
  await waitFor('delivery after restart', () => events.every((e) => r.arrivals.get(e.event_id as string) === 1));
  await waitFor('outbox emptied', async () => (await admin(on, 'GET', `/api/v1/destinations/${dest}`)).pending === 0);
  await close(on);
});

test('stopping mid-request gives the batch back untried, and the next instance sends it', async () => {
  const app = await instance();
  const r = await receiver();
  const { projectId, key } = await project(app);
  const dest = await webhookDestination(app, projectId, r);
  r.fail({ status: 503, delayMs: 400 });
  const event = makeEvent(projectId);
  await send(app, key, [event]);
  await waitFor('request in flight', () => r.received.length === 1);
  await close(app);
  const check = await openDatabase({ url: database.url, dataDir: '', schema: 'ingest', poolSize: 1 });
  try {
    const { rows } = await check.query<{ attempts: number; leased_until: Date | null }>(
      'SELECT attempts, leased_until FROM outbox WHERE destination_id = $1',
      [dest],
    );
    assert.deepEqual(rows, [{ attempts: 0, leased_until: null }]);
  } finally {
    await check.close();
  }
  const next = await instance();
  await waitFor('delivered by the next instance', () => r.events.has(event.event_id as string));
  await close(next);
});

test('a disabled destination keeps what it had pending, queues nothing new, and delivers the pending on re-enabling', async () => {
  const app = await instance();
  const r = await receiver();
  const { projectId, key } = await project(app);
  const dest = await webhookDestination(app, projectId, r);
  r.fail({ status: 503 }, 2);
  const before = makeEvent(projectId);
  await send(app, key, [before]);
  await waitFor('first failure', () => r.received.length >= 1);
  await admin(app, 'PATCH', `/api/v1/destinations/${dest}`, { enabled: false });
  const during = makeEvent(projectId);
  await send(app, key, [during]);
  assert.equal((await admin(app, 'GET', `/api/v1/destinations/${dest}`)).pending, 1);
  const seen = r.received.length;
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(r.received.length <= seen + 1, 'no more than a request already in flight reaches a disabled destination');
  await admin(app, 'PATCH', `/api/v1/destinations/${dest}`, { enabled: true });
  await waitFor('pending delivered after re-enabling', () => r.events.has(before.event_id as string));
  await new Promise((res) => setTimeout(res, 200));
  assert.ok(!r.events.has(during.event_id as string), 'events accepted while disabled are not forwarded');
  await close(app);
});

test('an event becomes a dead letter only once it has had the attempts and the time since its first failure', async () => {
  const app = await instance({
    ...FAST_FORWARDING,
    INGEST_FORWARDING_MAX_ATTEMPTS: '2',
    INGEST_FORWARDING_DEAD_LETTER_AFTER_MS: '700',
  });
  const r = await receiver();
  const { projectId, key } = await project(app);
  const dest = await webhookDestination(app, projectId, r);
  r.fail({ status: 422, body: { error: 'unprocessable' } }, 1000);
  await send(app, key, [makeEvent(projectId)]);
  const dead = await waitFor(
    'dead letter',
    async () => (await admin(app, 'GET', `/api/v1/destinations/${dest}/dead-letters`)).items.at(0),
    10_000,
  );
  const waited = Date.parse(dead.dead_at) - Date.parse(dead.first_failed_at);
  assert.ok(waited >= 700, `dead-lettered ${waited} ms after the first failure`);
  assert.ok(dead.attempts > 2, `kept retrying until the time had passed (${dead.attempts} attempts)`);
  assert.equal(dead.attempts, r.received.length);
  assert.match(dead.reason, /HTTP 422/);
  await close(app);
});
