import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { createAddressPolicy, type AddressPolicy } from '../../src/kit/outbound/address-policy.ts';
import { AUDIT_MIGRATIONS } from '../../src/audit/app.ts';
import { scheduleRule } from '../../src/audit/schedules/cron.ts';
import { runOneDue, type SchedulerOptions } from '../../src/audit/schedules/scheduler.ts';
import { putSchedule } from '../../src/audit/schedules/store.ts';

/**
 * Taking a due schedule (src/audit/schedules/scheduler.ts) with a real PostgreSQL, one step at a time: the owner's right
 * (identity) and the site's address (DNS) are asked with no transaction open and the row not locked; a claim whose
 * holder died comes due again after its lease; a holder that outlived its lease and lost the claim writes nothing.
 */

let database: FreshDatabase;
let db: Database;
let sql: pg.Client;
const logged: Array<{ msg: string; site?: string }> = [];
const loopback = createAddressPolicy(['127.0.0.1']);

before(async () => {
  database = await freshPostgres('auditclaim');
  db = await openDatabase({ url: database.url, dataDir: '/tmp/unused', schema: 'audit' });
  await migrate(db, AUDIT_MIGRATIONS);
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  await sql.query('SET search_path = audit');
});

after(async () => {
  await sql?.end().catch(() => {});
  await db?.close();
  await database?.drop();
});

/** A step that waits, when reached, until the test lets it go on. */
function gate() {
  let reached!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    entered,
    release,
    pass: async () => {
      reached();
      await released;
    },
  };
}

function options(overrides: Partial<SchedulerOptions> = {}): SchedulerOptions {
  return {
    db,
    log: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
    policy: loopback,
    limits: { defaultVersion: '2.2', defaultLevel: 'AA', maxDepth: 2, maxPages: 5 },
    maxQueued: 10,
    pollMs: 1000,
    queued: () => {},
    ownerRight: async () => 'holds',
    ...overrides,
  };
}

/** A policy that resolves as the loopback one does, once the gate lets it. */
const gatedPolicy = (g: ReturnType<typeof gate>): AddressPolicy => ({
  checkUrl: (url) => loopback.checkUrl(url),
  resolve: async (host) => {
    await g.pass();
    return loopback.resolve(host);
  },
});

/** A site whose daily schedule is due since a minute. */
async function dueSite(config: object = {}, url = 'http://127.0.0.1:9/'): Promise<string> {
  const id = randomUUID();
  await sql.query("INSERT INTO sites (id, owner, name, url, config) VALUES ($1, 'key:test', 'Site', $2, $3)", [
    id,
    url,
    JSON.stringify(config),
  ]);
  await sql.query(
    `INSERT INTO schedules (site_id, kind, cron, time_zone, next_run_at)
     VALUES ($1, 'daily', '0 3 * * *', 'UTC', now() - interval '1 minute')`,
    [id],
  );
  return id;
}

const runsOf = async (siteId: string) =>
  (await sql.query<{ id: string }>('SELECT id FROM jobs WHERE site_id = $1', [siteId])).rows.map((r) => r.id);

const scheduleOf = async (siteId: string) =>
  (
    await sql.query<{
      next_run_at: Date;
      last_job_id: string | null;
      claimed_until: Date | null;
      claim_token: string | null;
    }>('SELECT next_run_at, last_job_id, claimed_until, claim_token FROM schedules WHERE site_id = $1', [siteId])
  ).rows[0]!;

/** No connection of the service's database sits in an open transaction, and the schedule's row can be locked at once. */
async function assertNothingHeld(siteId: string, during: string): Promise<void> {
  const { rows } = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
  );
  assert.equal(rows[0]!.n, 0, `no transaction open while ${during}`);
  await sql.query('BEGIN');
  try {
    await sql.query('SELECT 1 FROM schedules WHERE site_id = $1 FOR UPDATE NOWAIT', [siteId]);
  } catch (err) {
    assert.fail(`the schedule's row is locked while ${during}: ${(err as Error).message}`);
  } finally {
    await sql.query('ROLLBACK');
  }
}

test('no transaction is open and the schedule is not locked while identity and DNS are asked', async () => {
  const siteId = await dueSite();
  const identity = gate();
  const dns = gate();
  const running = runOneDue(
    options({
      ownerRight: async () => {
        await identity.pass();
        return 'holds';
      },
      policy: gatedPolicy(dns),
    }),
  );
  try {
    await identity.entered;
    await assertNothingHeld(siteId, "the owner's right is asked");
    identity.release();
    await dns.entered;
    await assertNothingHeld(siteId, "the site's address is resolved");
  } finally {
    identity.release();
    dns.release();
    await running.catch(() => {});
  }
  assert.equal(await running, true);
  const runs = await runsOf(siteId);
  assert.equal(runs.length, 1);
  const schedule = await scheduleOf(siteId);
  assert.equal(schedule.last_job_id, runs[0]);
  assert.ok(schedule.next_run_at.getTime() > Date.now(), 'moved to its next slot');
  assert.equal(schedule.claimed_until, null);
  assert.equal(schedule.claim_token, null);
});

test('a claim whose holder died is taken again once its lease passed, and queues one run', async () => {
  const siteId = await dueSite();
  // The holder claims it (with the service's own lease) and dies before its second step: its question to identity
  // never comes back.
  const dead = gate();
  void runOneDue(
    options({
      ownerRight: async () => {
        await dead.pass();
        return new Promise(() => {});
      },
    }),
  );
  await dead.entered;
  assert.equal(await runOneDue(options()), false, 'not due while the lease holds');
  assert.deepEqual(await runsOf(siteId), []);
  const { rows } = await sql.query<{ lease: number }>(
    'SELECT extract(epoch FROM claimed_until - now())::int AS lease FROM schedules WHERE site_id = $1',
    [siteId],
  );
  assert.ok(rows[0]!.lease > 290 && rows[0]!.lease <= 300, `claimed for five minutes (${rows[0]!.lease} s left)`);
  // Five minutes later, as far as the claim is concerned.
  await sql.query("UPDATE schedules SET claimed_until = now() - interval '1 second' WHERE site_id = $1", [siteId]);
  assert.equal(await runOneDue(options()), true, 'due again once the lease passed');
  assert.equal((await runsOf(siteId)).length, 1);
  assert.equal(await runOneDue(options()), false, 'then moved to its next slot');
  assert.equal((await runsOf(siteId)).length, 1);
  assert.equal((await scheduleOf(siteId)).claim_token, null);
});

test('a holder that outlived its lease and lost the claim to another instance queues nothing', async () => {
  const siteId = await dueSite();
  const first = gate();
  const second = gate();
  const slow = runOneDue(
    options({
      leaseSeconds: 0.3,
      ownerRight: async () => {
        await first.pass();
        return 'holds';
      },
    }),
  );
  await first.entered;
  await new Promise((r) => setTimeout(r, 400));
  const other = runOneDue(
    options({
      ownerRight: async () => {
        await second.pass();
        return 'holds';
      },
    }),
  );
  await second.entered;
  const claimedByOther = (await scheduleOf(siteId)).claim_token;
  first.release();
  assert.equal(await slow, true);
  assert.deepEqual(await runsOf(siteId), [], 'the late holder queued nothing');
  const meanwhile = await scheduleOf(siteId);
  assert.equal(meanwhile.claim_token, claimedByOther, "the other instance's claim stands");
  assert.ok(meanwhile.next_run_at.getTime() < Date.now(), 'not moved by the late holder');
  assert.ok(logged.some((l) => l.site === siteId && l.msg === 'scheduled audit left alone: its claim was lost'));
  second.release();
  assert.equal(await other, true);
  const runs = await runsOf(siteId);
  assert.equal(runs.length, 1, 'the claim holder queued the one run');
  assert.equal((await scheduleOf(siteId)).last_job_id, runs[0]);
});

test('a schedule changed while claimed is left as changed: its holder queues nothing', async () => {
  const siteId = await dueSite();
  const held = gate();
  const running = runOneDue(
    options({
      ownerRight: async () => {
        await held.pass();
        return 'holds';
      },
    }),
  );
  await held.entered;
  const inAnHour = new Date(Date.now() + 3_600_000);
  await putSchedule(db, siteId, scheduleRule({ kind: 'daily', time: '05:00', timeZone: 'UTC' }), true, inAnHour);
  held.release();
  assert.equal(await running, true);
  assert.deepEqual(await runsOf(siteId), []);
  assert.equal((await scheduleOf(siteId)).next_run_at.getTime(), inAnHour.getTime());
});

test("a session's secret no longer stored leaves the slot not queued, saying which", async () => {
  const siteId = await dueSite({ session: { cookies: [{ name: 'sid', secret: 'GONE' }] } });
  assert.equal(await runOneDue(options()), true);
  assert.deepEqual(await runsOf(siteId), []);
  const { rows } = await sql.query('SELECT last_error, claim_token FROM schedules WHERE site_id = $1', [siteId]);
  assert.match(rows[0].last_error, /^not queued: session uses the secret "GONE", not stored for this credential/);
  assert.equal(rows[0].claim_token, null);
});

test("a site whose host's resolver does not answer is passed over with the reason, not held", {
  timeout: 10_000,
}, async () => {
  const siteId = await dueSite({}, 'http://site.example/');
  // The system resolver's server not answering: the policy's own time limit ends the wait.
  const silentDns = createAddressPolicy(['site.example'], {
    lookup: () => new Promise(() => {}),
    lookupTimeoutMs: 200,
  });
  assert.equal(await runOneDue(options({ policy: silentDns })), true);
  assert.deepEqual(await runsOf(siteId), []);
  const { rows } = await sql.query(
    'SELECT last_error, next_run_at > now() AS ahead, claim_token, claimed_until FROM schedules WHERE site_id = $1',
    [siteId],
  );
  assert.deepEqual(rows[0], {
    last_error: 'not queued: url cannot be audited: the host site.example did not resolve within 0.2 s',
    ahead: true,
    claim_token: null,
    claimed_until: null,
  });
});

test('a slot whose run could not be queued is passed over, and its claim ended', async () => {
  const siteId = await dueSite();
  const failing = options({
    ownerRight: async () => {
      throw new Error('an unexpected failure');
    },
  });
  assert.equal(await runOneDue(failing), true);
  assert.deepEqual(await runsOf(siteId), []);
  const { rows } = await sql.query(
    'SELECT last_error, next_run_at > now() AS ahead, claim_token, claimed_until FROM schedules WHERE site_id = $1',
    [siteId],
  );
  assert.deepEqual(rows[0], {
    last_error: 'not queued: the service failed to queue the run',
    ahead: true,
    claim_token: null,
    claimed_until: null,
  });
  assert.ok(logged.some((l) => l.site === siteId && l.msg === 'queueing a scheduled audit failed'));
});
