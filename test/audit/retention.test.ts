import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAuditApp, openAuditDatabase } from '../../src/audit/app.ts';
import { auditCommand } from '../../src/audit/cli.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import { deleteExpiredJobs, startRetentionSweep } from '../../src/audit/jobs/retention.ts';
import { createMetrics } from '../../src/audit/metrics.ts';
import { ConfigError } from '../../src/kit/config.ts';
import type { Database } from '../../src/kit/db.ts';
import { startAudit, type AuditHarness } from './support.ts';
import { failedStart } from '../support/failed-start.ts';

// No worker (AUDIT_CONCURRENCY 0): jobs stay as the tests put them; their ages are set in the database.
let h: AuditHarness;
let db: Database;

before(async () => {
  h = await startAudit({ AUDIT_CONCURRENCY: '0', AUDIT_RETENTION_DAYS: '30' }, 'auditretention');
  db = await openAuditDatabase(loadAuditConfig(h.env));
});

after(async () => {
  await db?.close();
  await h?.close();
});

/** A job queued through the API, then set to `status`, finished (or, for pending and running, created) `daysAgo` days ago. */
async function jobAged(status: string, daysAgo: number): Promise<string> {
  const res = await h.call('POST', '/api/v1/audits', { url: 'http://127.0.0.1:9/' });
  assert.equal(res.statusCode, 202, res.body);
  const id: string = res.json().id;
  const finished = ['completed', 'failed', 'cancelled'].includes(status);
  await h.sql.query(
    `UPDATE jobs SET status = $2, created_at = now() - make_interval(days => $3 + 1),
       finished_at = CASE WHEN $4 THEN now() - make_interval(days => $3) END,
       result = CASE WHEN $2 = 'completed' THEN '{"score": 100}'::jsonb END,
       worker = CASE WHEN $2 = 'running' THEN 'elsewhere' END,
       lease_until = CASE WHEN $2 = 'running' THEN now() + interval '1 hour' END
     WHERE id = $1`,
    [id, status, daysAgo, finished],
  );
  return id;
}

async function remaining(ids: string[]): Promise<string[]> {
  const { rows } = await h.sql.query<{ id: string }>('SELECT id FROM jobs WHERE id = ANY($1)', [ids]);
  const left = new Set(rows.map((r) => r.id));
  return ids.filter((id) => left.has(id));
}

test('finished jobs older than the retention go, with their results; newer ones and unfinished ones stay', async () => {
  const old = [await jobAged('completed', 31), await jobAged('failed', 45), await jobAged('cancelled', 400)];
  const recent = [await jobAged('completed', 29), await jobAged('failed', 1)];
  const unfinished = [await jobAged('pending', 200), await jobAged('running', 200)];
  // A pending job with a finished_at left over (never written today, but the status decides, not the date).
  const odd = await jobAged('pending', 100);
  await h.sql.query("UPDATE jobs SET finished_at = now() - interval '100 days' WHERE id = $1", [odd]);

  // Two instances sweeping at the same moment: each row deleted once, by one of them, and neither fails.
  const [a, b] = await Promise.all([deleteExpiredJobs(db, 30), deleteExpiredJobs(db, 30)]);
  assert.equal(a + b, 3);
  assert.deepEqual(await remaining(old), []);
  assert.deepEqual(await remaining([...recent, ...unfinished, odd]), [...recent, ...unfinished, odd]);
  assert.equal((await h.call('GET', `/api/v1/audits/${old[0]}`)).statusCode, 404, 'a deleted job is gone from the API');
  assert.equal((await h.call('GET', `/api/v1/audits/${old[0]}/report`)).statusCode, 404, 'and so is its report');
  assert.equal((await h.call('GET', `/api/v1/audits/${recent[1]}`)).statusCode, 200);
  assert.equal(await deleteExpiredJobs(db, 30), 0, 'a second sweep finds nothing');
  // Leave the table to the next tests: the running and pending ones count against the key's queue limit.
  await h.sql.query('DELETE FROM jobs');
});

test('AUDIT_RETENTION_DAYS 0 keeps every finished job; a sweep deletes in batches beyond one statement', async () => {
  const ancient = await jobAged('completed', 3650);
  const metrics = createMetrics();
  const stopKeeping = startRetentionSweep({ db, log: h.app.log, days: 0, deleted: metrics.jobsDeleted });
  await stopKeeping();
  assert.equal(await deleteExpiredJobs(db, 0), 0);
  assert.deepEqual(await remaining([ancient]), [ancient]);

  // 1,200 old finished jobs (more than one batch of 500), written straight into the table.
  await h.sql.query(
    `INSERT INTO jobs (id, owner, url, config, status, finished_at, created_at)
     SELECT 'bulk-' || n, 'key:bulk', 'http://127.0.0.1:9/', '{}'::jsonb, 'completed', now() - interval '40 days', now() - interval '41 days'
     FROM generate_series(1, 1200) n`,
  );
  const stop = startRetentionSweep({ db, log: h.app.log, days: 30, deleted: metrics.jobsDeleted });
  await stop(); // waits for the sweep it started at once
  assert.equal((await h.sql.query("SELECT count(*)::int AS n FROM jobs WHERE owner = 'key:bulk'")).rows[0].n, 0);
  assert.deepEqual(await remaining([ancient]), [], 'the ten-year-old job went too');
  assert.match(await metrics.registry.metrics(), /^audit_jobs_deleted_total 1201$/m);
});

test('the service sweeps by itself when it starts, and counts what it deleted in /metrics', async () => {
  const old = await jobAged('failed', 60);
  const kept = await jobAged('completed', 2);
  const second = await buildAuditApp(loadAuditConfig(h.env));
  await second.ready();
  await second.close(); // closing waits for a sweep under way
  assert.deepEqual(await remaining([old, kept]), [kept]);

  const third = await buildAuditApp(loadAuditConfig({ ...h.env, AUDIT_RETENTION_DAYS: '1' }));
  try {
    await third.ready();
    for (let i = 0; ; i++) {
      const text = (await third.inject({ method: 'GET', url: '/metrics' })).body;
      if (/^audit_jobs_deleted_total 1$/m.test(text)) break;
      assert.ok(
        i < 200,
        `the start-up sweep did not delete the 2-day-old job:\n${text
          .split('\n')
          .filter((l) => l.startsWith('audit_jobs_deleted'))
          .join('\n')}`,
      );
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await third.close();
  }
  assert.deepEqual(await remaining([kept]), []);
});

test('a malformed AUDIT_RETENTION_DAYS stops start-up with one line naming it', async () => {
  for (const value of ['ninety', '-1', '1.5', '36501', '90d']) {
    assert.throws(
      () => loadAuditConfig({ ...h.env, AUDIT_RETENTION_DAYS: value }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.variable === 'AUDIT_RETENTION_DAYS' &&
        /^AUDIT_RETENTION_DAYS is malformed: expected an integer from 0 to 36500/.test(err.message),
      value,
    );
  }
  assert.equal(loadAuditConfig({ ...h.env, AUDIT_RETENTION_DAYS: '' }).retentionDays, 90, 'empty: the default');

  const { status, stderr } = await failedStart('audit', {
    DATA_DIR: h.env.DATA_DIR!,
    DATABASE_URL: h.env.DATABASE_URL!,
    AUDIT_RETENTION_DAYS: 'ninety',
  });
  assert.equal(status, 1);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0]!, /AUDIT_RETENTION_DAYS is malformed: expected an integer from 0 to 36500 \(got "ninety"\)/);
});

test('platform audit jobs delete removes one finished job of any owner; unfinished and unknown ones are refused', async () => {
  const config = loadAuditConfig(h.env);
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const done = await jobAged('completed', 0);
  const pending = await jobAged('pending', 0);
  assert.equal(await auditCommand(['jobs', 'delete', done], config, io), 0);
  assert.deepEqual(out, [`deleted completed audit job ${done}`]);
  assert.deepEqual(await remaining([done]), []);
  assert.equal((await h.call('GET', `/api/v1/audits/${done}`)).statusCode, 404);

  assert.equal(await auditCommand(['jobs', 'delete', pending], config, io), 1);
  assert.match(
    err.join('\n'),
    new RegExp(
      `audit job ${pending} is pending: only finished jobs are deleted; cancel it first \\(DELETE /api/v1/audits/${pending}\\)`,
    ),
  );
  assert.deepEqual(await remaining([pending]), [pending]);
  assert.equal(await auditCommand(['jobs', 'delete', 'no-such-job'], config, io), 1);
  assert.match(err.join('\n'), /no audit job no-such-job/);
  assert.equal(await auditCommand(['jobs', 'delete'], config, io), 2, 'the id is required');
  assert.equal(await auditCommand(['jobs', 'delete', 'a', 'b'], config, io), 2);

  out.length = 0;
  const failed = await jobAged('failed', 0);
  assert.equal(await auditCommand(['jobs', 'delete', failed, '--json'], config, io), 0);
  assert.deepEqual(JSON.parse(out.join('\n')), { id: failed, status: 'failed', deleted: true });
});
