import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

/**
 * Schedules on several instances: two `platform start audit` processes on one PostgreSQL database find the same due
 * schedules, and each schedule queues exactly one run. Slots missed while every instance was down run once when one
 * is back, not once per slot.
 */

const SITES = 30;
let h: AuditHarness;
let web: TestSite;
let instances: ServiceProcess[] = [];
const siteIds: string[] = [];

before(async () => {
  h = await startAudit({ AUDIT_CONCURRENCY: '0', AUDIT_MAX_QUEUED_PER_KEY: '1000' }, 'auditsched');
  web = await serveSite({ '/': page('Home', '<p>Home</p>') });
  for (let n = 0; n < SITES; n++) {
    const site = (await h.call('POST', '/api/v1/sites', { name: `Site ${n}`, url: `${web.origin}/?n=${n}` })).json();
    const schedule = await h.call('PUT', `/api/v1/sites/${site.id}/schedule`, { kind: 'daily', timeZone: 'UTC' });
    assert.equal(schedule.statusCode, 200, schedule.body);
    siteIds.push(site.id);
  }
  // The harness's own app is an instance too: closed, so only the two processes below take schedules.
  await h.app.close();
});

after(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  await web?.close();
  await h?.sql.end().catch(() => {});
  await h?.database.drop();
});

/** Starts `count` instances on the shared database; they queue runs but run none (no worker), so runs stay countable. */
async function startInstances(count: number): Promise<void> {
  const env = { ...h.env, LOG_LEVEL: 'info', AUDIT_CONCURRENCY: '0', AUDIT_POLL_MS: '50' };
  instances = await Promise.all(Array.from({ length: count }, () => startServiceProcess('audit', env)));
}

async function stopInstances(): Promise<void> {
  await Promise.all(instances.map((i) => i.stop()));
  instances = [];
}

/** The sites of the instance's log lines with this message. */
const logged = (instance: ServiceProcess, msg: string): string[] =>
  instance
    .stdout()
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return [];
      const entry = JSON.parse(line) as { msg?: string; site?: string };
      return entry.msg === msg && entry.site ? [entry.site] : [];
    });

/** Waits until the instances' logs have `count` lines with this message, read as their output arrives. */
async function loggedAtLeast(msg: string, count: number): Promise<void> {
  const enough = () => instances.flatMap((i) => logged(i, msg)).length >= count;
  if (enough()) return;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!enough()) return;
      for (const i of instances) i.child.stdout?.off('data', check);
      resolve();
    };
    for (const i of instances) i.child.stdout?.on('data', check);
  });
}

/** Waits until no enabled schedule is due any more (each was taken and moved to its next slot). */
async function untilNoneDue(): Promise<void> {
  for (;;) {
    const { rows } = await h.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM schedules WHERE enabled AND next_run_at <= now()',
    );
    if (rows[0]!.n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const runsPerSite = async (): Promise<Map<string, number>> => {
  const { rows } = await h.sql.query<{ site_id: string; n: number }>(
    'SELECT site_id, count(*)::int AS n FROM jobs WHERE site_id IS NOT NULL GROUP BY site_id',
  );
  return new Map(rows.map((r) => [r.site_id, r.n]));
};

test('two instances on one database: every due schedule queues exactly one run', async () => {
  await startInstances(2);
  // Every schedule comes due at the same moment, on both instances' next poll.
  await h.sql.query("UPDATE schedules SET next_run_at = now() - interval '1 minute'");
  await untilNoneDue();
  const runs = await runsPerSite();
  assert.equal(runs.size, SITES);
  for (const id of siteIds) assert.equal(runs.get(id), 1, `site ${id} ran once`);
  // A run is in the database a moment before its instance's log line comes through the pipe.
  await loggedAtLeast('scheduled audit queued', SITES);
  const queued = instances.flatMap((i) => logged(i, 'scheduled audit queued'));
  assert.equal(queued.length, SITES, 'one "scheduled audit queued" line per site, over both instances');
  assert.equal(new Set(queued).size, SITES);
  // Not even found twice: a schedule the other instance had taken is never seen due (which the site's one-run-at-a-time
  // rule would otherwise have caught, as "not queued").
  assert.deepEqual(
    instances.flatMap((i) => logged(i, 'scheduled audit not queued')),
    [],
  );
  const { rows } = await h.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM schedules sc JOIN jobs j ON j.id = sc.last_job_id
     WHERE sc.next_run_at > now() AND sc.last_run_at IS NOT NULL`,
  );
  assert.equal(rows[0]!.n, SITES, 'each schedule records its run and its next slot is ahead');
});

test('after every instance was down for three days of slots, each schedule runs once, not three times', async () => {
  await stopInstances();
  // The earlier runs end, so the sites are free to run again.
  await h.sql.query("UPDATE jobs SET status = 'cancelled', finished_at = now() WHERE status = 'pending'");
  await h.sql.query("UPDATE schedules SET next_run_at = now() - interval '3 days' + interval '1 hour'");
  await startInstances(2);
  await untilNoneDue();
  const runs = await runsPerSite();
  for (const id of siteIds) assert.equal(runs.get(id), 2, `site ${id}: one more run`);
  const { rows } = await h.sql.query<{ ahead: boolean }>(
    "SELECT bool_and(next_run_at > now() AND next_run_at <= now() + interval '1 day') AS ahead FROM schedules",
  );
  assert.equal(rows[0]!.ahead, true, 'every schedule moved to its next slot after now');
});

test('a slot while the previous run is still pending queues nothing and says so', async () => {
  await h.sql.query("UPDATE schedules SET next_run_at = now() - interval '1 minute' WHERE site_id = $1", [siteIds[0]]);
  await untilNoneDue();
  const runs = await runsPerSite();
  assert.equal(runs.get(siteIds[0]!), 2);
  const { rows } = await h.sql.query<{ last_error: string }>('SELECT last_error FROM schedules WHERE site_id = $1', [
    siteIds[0],
  ]);
  assert.match(rows[0]!.last_error, /the previous run was still pending or running/);
});
