import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startDashboard, type DashboardServer } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { tempDir } from '../support/tmp.ts';
import { StandardWebhookReceiver } from './alert-receivers.ts';

const RULES = 6;
let shared: FreshDatabase;
let source: FreshDatabase;
let sourceDb: pg.Client;
let serviceDb: pg.Client;
let api: DashboardServer;
const instances: Record<string, ServiceProcess> = {};
let env: Record<string, string>;
const hook = new StandardWebhookReceiver();
const dir = tempDir('alerts-instances-');

before(async () => {
  await hook.start();
  shared = await freshPostgres('alertsha');
  source = await freshPostgres('alertshasrc');
  sourceDb = new pg.Client({ connectionString: source.url });
  await sourceDb.connect();
  // The rules' query waits at a gate the test opens: evaluations stay in progress as long as the test needs.
  await sourceDb.query(`
    CREATE TABLE gate (open boolean NOT NULL); INSERT INTO gate VALUES (false);
    CREATE TABLE metric (v numeric); INSERT INTO metric VALUES (42);
    CREATE FUNCTION wait_at_gate() RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN WHILE NOT (SELECT open FROM gate) LOOP PERFORM pg_sleep(0.05); END LOOP; RETURN true; END $$;`);
  env = {
    DASHBOARD_DATABASE_URL: shared.url,
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
    DASHBOARD_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    DASHBOARD_SCHEDULER_TICK_MS: '100',
    DASHBOARD_SCHEDULER_LEASE_SECONDS: '2',
    DATA_DIR: dir.path,
  };
  // The API and CLI of the test, on the same database, evaluating nothing itself.
  api = await startDashboard('alertshaapi', { ...env, DASHBOARD_SCHEDULER: 'false' });
  serviceDb = new pg.Client({ connectionString: shared.url, options: '-c search_path=dashboard' });
  await serviceDb.connect();
  for (const id of ['one', 'two'])
    instances[id] = await startServiceProcess('dashboard', { ...env, DASHBOARD_INSTANCE_ID: id, LOG_LEVEL: 'warn' });
});

after(async () => {
  for (const p of Object.values(instances)) if (p.alive()) await p.stop();
  await serviceDb?.end();
  await api?.close();
  await sourceDb?.end();
  await source?.drop();
  await shared?.drop();
  dir.remove();
  await hook.close();
});

test('two instances on one database: one dies mid-evaluation, the other takes its rules over, each notification once', async () => {
  const admin = await api.signIn({ tenant: 'acme', role: 'admin' });
  const ds = await api.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Metrics', slug: 'metrics', type: 'postgres', connectionUrl: source.url, queryTimeoutSeconds: 120 },
  });
  assert.equal(ds.status, 201, JSON.stringify(ds.body));
  const q = await api.request('POST', '/api/v1/queries', {
    as: admin,
    body: { name: 'Gated', dataSourceId: ds.body.id, query: 'SELECT v FROM metric WHERE wait_at_gate()' },
  });
  const channel = await api.request('POST', '/api/v1/alert-channels', {
    as: admin,
    body: { name: 'Hook', kind: 'webhook', url: hook.url },
  });
  hook.secret = channel.body.secret;
  const ids: number[] = [];
  for (let i = 0; i < RULES; i++) {
    const r = await api.request('POST', '/api/v1/alert-rules', {
      as: admin,
      body: {
        name: `Rule ${i}`,
        savedQueryId: q.body.id,
        condition: { op: 'above', threshold: 10 },
        intervalMinutes: 60,
        channelIds: [channel.body.id],
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.push(r.body.id);
  }

  // Some instance claims the rules and stops at the gate, mid-evaluation: that instance is killed.
  const claimed = await waitForRow<{ owner: string }>(
    `SELECT split_part(lease_owner, '/', 1) AS owner FROM alert_rules WHERE lease_owner IS NOT NULL LIMIT 1`,
  );
  const victim = instances[claimed.owner]!;
  const survivor = claimed.owner === 'one' ? 'two' : 'one';
  victim.child.kill('SIGKILL');
  await new Promise((resolve) => victim.child.once('exit', resolve));
  const held = await serviceDb.query(`SELECT count(*)::int AS n FROM alert_rules WHERE lease_owner LIKE $1`, [
    `${claimed.owner}/%`,
  ]);
  assert.ok(held.rows[0].n > 0, 'the dead instance still holds leases');

  // Its leases run out and the survivor claims those rules; then the gate opens for every query.
  await waitForRow(
    `SELECT 1 AS taken FROM alert_rules WHERE lease_owner LIKE $1 AND NOT EXISTS (
       SELECT 1 FROM alert_rules WHERE lease_owner LIKE $2)`,
    [`${survivor}/%`, `${claimed.owner}/%`],
  );
  await sourceDb.query('UPDATE gate SET open = true');

  const done = await waitForRow<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_deliveries WHERE status = 'sent'
      HAVING count(*) = $1 AND NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE status = 'pending')`,
    [RULES],
  );
  assert.equal(done.n, RULES);
  const states = await serviceDb.query('SELECT state, evaluations::int AS n, last_error FROM alert_rules ORDER BY id');
  assert.deepEqual(
    states.rows,
    ids.map(() => ({ state: 'firing', n: 1, last_error: null })),
    'each rule evaluated once: the dead instance wrote nothing',
  );
  const history = await serviceDb.query(`SELECT rule_id, count(*)::int AS n FROM alert_state_history GROUP BY rule_id`);
  assert.ok(history.rows.every((r) => r.n === 1));
  const arrived = hook.inbox.items.filter((h) => h.json?.type === 'alert.firing');
  assert.equal(arrived.length, RULES, 'one notification per rule');
  assert.deepEqual(new Set(arrived.map((h) => h.json.data.rule.id)), new Set(ids));
  assert.ok(arrived.every((h) => hook.verifies(h)));
  assert.ok(instances[survivor]!.alive());
});

test('a restart loses no queued notification and repeats none: what was pending is delivered once by the next start', async () => {
  const survivor = Object.entries(instances).find(([, p]) => p.alive())!;
  // The receiver is down for a while: the resolved notifications stay in the outbox, pending.
  hook.answers.push(...Array.from({ length: RULES }, () => 503));
  await sourceDb.query('UPDATE metric SET v = 1');
  await serviceDb.query('UPDATE alert_rules SET next_eval_at = now()');
  await waitForRow(
    `SELECT 1 AS refused FROM notification_deliveries WHERE payload->>'type' = 'alert.resolved'
      GROUP BY 1 HAVING count(*) = $1 AND bool_and(status = 'pending' AND attempts >= 1 AND claimed_by IS NULL)`,
    [RULES],
  );
  await survivor[1].stop();
  const before = await serviceDb.query(
    `SELECT count(*)::int AS n FROM notification_deliveries WHERE status = 'pending'`,
  );
  assert.equal(before.rows[0].n, RULES, 'queued, not lost, while no instance runs');
  // Brought forward rather than waiting out the backoff; then a new instance starts.
  await serviceDb.query(`UPDATE notification_deliveries SET next_attempt_at = now() WHERE status = 'pending'`);
  instances.three = await startServiceProcess('dashboard', {
    ...env,
    DASHBOARD_INSTANCE_ID: 'three',
    LOG_LEVEL: 'warn',
  });
  await waitForRow(
    `SELECT 1 AS done WHERE NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE status = 'pending')`,
  );
  const resolved = hook.inbox.items.filter((h) => h.json?.type === 'alert.resolved');
  assert.equal(resolved.length, RULES, 'each resolved notification delivered once');
  assert.equal(new Set(resolved.map((h) => h.headers['webhook-id'])).size, RULES);
  const refusedIds = new Set(hook.refused.map((h) => h.headers['webhook-id']));
  assert.ok(
    resolved.every((h) => refusedIds.has(h.headers['webhook-id'])),
    'the same webhook-id as the first attempt',
  );
});

/** The first row a query on the service's database answers, asked again at every change of alert_rules or deliveries. */
async function waitForRow<T = unknown>(sql: string, params: unknown[] = []): Promise<T> {
  const listener = new pg.Client({ connectionString: shared.url, options: '-c search_path=dashboard' });
  await listener.connect();
  try {
    await listener.query(`CREATE OR REPLACE FUNCTION test_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('changed', ''); RETURN NULL; END $$`);
    for (const table of ['alert_rules', 'notification_deliveries'])
      await listener.query(`CREATE OR REPLACE TRIGGER test_changed_notify AFTER INSERT OR UPDATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION test_changed_notify()`);
    await listener.query('LISTEN changed');
    for (;;) {
      const notified = new Promise((resolve) => listener.once('notification', resolve));
      const r = await listener.query(sql, params);
      if (r.rows[0]) return r.rows[0] as T;
      await notified;
    }
  } finally {
    await listener.end();
  }
}
