import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type SitePage, type TestSite } from './support.ts';

/**
 * Several instances share one queue: two `platform start audit` processes (each its own worker and Chromium)
 * on one PostgreSQL database take jobs enqueued all at once, and every job runs and completes exactly once.
 */

const JOBS = 8;
const PER_INSTANCE = 2;
let api: AuditHarness;
let site: TestSite;
const instances: ServiceProcess[] = [];
let release: () => void = () => {};
const barrier = new Promise<void>((resolve) => {
  release = resolve;
});

before(async () => {
  // The harness's own app answers the API only (no worker), so all work goes to the two processes.
  api = await startAudit({ AUDIT_CONCURRENCY: '0' }, 'auditshared');
  // Each page is held until PER_INSTANCE * 2 pages are being loaded at the same time: one instance runs at most
  // PER_INSTANCE jobs, so the queue only moves on when both instances have taken their share.
  let loading = 0;
  const pages: Record<string, SitePage> = {};
  for (let n = 0; n < JOBS; n++) {
    pages[`/job/${n}`] = {
      body: page(`Page ${n}`, `<p>Job ${n}.</p><img src="/missing-${n}.png">`),
      holdUntil: () => {
        if (++loading === PER_INSTANCE * 2) release();
        return barrier;
      },
    };
  }
  site = await serveSite(pages);
  // The first pages wait for the other instance to start its Chromium: a page time limit that a loaded machine
  // cannot reach, so no attempt fails (and is retried) for that alone.
  const env = {
    ...api.env,
    LOG_LEVEL: 'info',
    AUDIT_CONCURRENCY: String(PER_INSTANCE),
    AUDIT_PAGE_TIMEOUT_SECONDS: '180',
  };
  instances.push(...(await Promise.all([startServiceProcess('audit', env), startServiceProcess('audit', env)])));
});

after(async () => {
  release();
  await Promise.all(instances.map((i) => i.stop()));
  await site?.close();
  await api?.close();
});

/** The ids of the jobs an instance's log says it completed. */
function completedBy(instance: ServiceProcess): string[] {
  return instance
    .stdout()
    .split('\n')
    .flatMap((line) => {
      if (!line.startsWith('{')) return [];
      const entry = JSON.parse(line) as { msg?: string; job?: string };
      return entry.msg === 'audit completed' && entry.job ? [entry.job] : [];
    });
}

/**
 * Which instance completed which job, once every job's "audit completed" line has come through the instances' stdout:
 * a job reads completed in the database a moment before its instance's log line arrives through the pipe (a CI run
 * once read the logs one line short).
 */
async function completedByEach(jobs: number, timeoutMs = 10_000): Promise<[string[], string[]]> {
  const read = () => instances.map(completedBy) as [string[], string[]];
  const done = () => read().flat().length >= jobs;
  if (!done()) {
    await new Promise<void>((resolve) => {
      const check = () => {
        if (done()) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        for (const i of instances) i.child.stdout?.off('data', check);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      for (const i of instances) i.child.stdout?.on('data', check);
    });
  }
  return read();
}

async function completedMetric(instance: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('audit_jobs_finished_total{status="completed"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('two instances share one queue: jobs enqueued at once each run and complete exactly once, and both instances took work', {
  timeout: 240_000,
}, async () => {
  const [first] = instances;
  // All at once, over a real socket, to one instance: the other finds its share by polling the database.
  const created = await Promise.all(
    Array.from({ length: JOBS }, (_, n) =>
      fetch(`${first!.url}/api/v1/audits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.origin}/job/${n}` }),
      }),
    ),
  );
  const ids: string[] = [];
  for (const res of created) {
    assert.equal(res.status, 202, await res.clone().text());
    ids.push(((await res.json()) as { id: string }).id);
  }
  assert.equal(new Set(ids).size, JOBS);

  await barrier;
  const jobs = await Promise.all(ids.map((id) => waitForJob(api, id, ['completed', 'failed', 'cancelled'], 180_000)));
  for (const [n, job] of jobs.entries()) {
    assert.equal(job.status, 'completed', `job ${n}: ${job.error}`);
    assert.equal(job.attempts, 1, `job ${n} was claimed once`);
    assert.equal(job.result.targetUrl, `${site.origin}/job/${n}`, "each job carries its own page's result");
    assert.ok(job.result.findings.some((f: any) => f.ruleId === 'image-alt'));
  }
  for (let n = 0; n < JOBS; n++)
    assert.equal(site.hits.filter((p) => p === `/job/${n}`).length, 1, `/job/${n} was loaded once`);

  // Which instance ran which job, from their own logs and metrics.
  const [a, b] = await completedByEach(JOBS);
  assert.ok(a.length > 0 && b.length > 0, `both instances completed jobs (${a.length} and ${b.length})`);
  assert.deepEqual([...a, ...b].sort(), [...ids].sort(), 'every job completed once, by one instance');
  assert.deepEqual(await Promise.all(instances.map(completedMetric)), [a.length, b.length]);

  const { rows } = await api.sql.query(
    'SELECT status, count(*)::int AS n, count(worker)::int AS leased, count(result)::int AS results FROM jobs GROUP BY status',
  );
  assert.deepEqual(rows, [{ status: 'completed', n: JOBS, leased: 0, results: JOBS }]);
});
