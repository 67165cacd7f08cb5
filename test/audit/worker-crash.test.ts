import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { buildAuditApp } from '../../src/audit/app.ts';
import { loadAuditConfig } from '../../src/audit/config.ts';
import type { App } from '../../src/kit/app.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type SitePage, type TestSite } from './support.ts';

/**
 * A worker killed mid-job (SIGKILL: no shutdown, its lease simply stops being renewed) leaves the job running
 * until the lease ends; another instance then takes it over and completes it, once.
 */

const LEASE = '2';
let api: AuditHarness;
let site: TestSite;
let taker: App | null = null;
const children = new Set<ChildProcess>();
const pages: Record<string, SitePage | string> = {};

before(async () => {
  // This instance only answers the API (no worker), so the job goes to the child process.
  api = await startAudit({ AUDIT_CONCURRENCY: '0', AUDIT_LEASE_SECONDS: LEASE }, 'auditcrash');
  pages['/slow'] = { body: page('Slow', '<img src="/p.png">'), holdUntil: new Promise(() => {}) };
  site = await serveSite(pages);
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await taker?.close();
  await site?.close();
  await api?.close();
});

/** `platform start audit` with one worker, through the shared harness (test/support/service-process.ts). */
async function startWorkerProcess(): Promise<ChildProcess> {
  const { child } = await startServiceProcess('audit', { ...api.env, LOG_LEVEL: 'error', AUDIT_CONCURRENCY: '1' });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Chromium and its helpers started by a process, so the test can end them too (a SIGKILLed parent cannot). */
function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const kids = out
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

test('a job whose worker is killed mid-page returns to the queue after its lease and completes once elsewhere', {
  timeout: 180_000,
}, async () => {
  const created = await api.call('POST', '/api/v1/audits', { url: `${site.origin}/slow` });
  assert.equal(created.statusCode, 202, created.body);
  const id = created.json().id;

  const child = await startWorkerProcess();
  await site.requested('/slow');
  const running = await api.call('GET', `/api/v1/audits/${id}`);
  assert.equal(running.json().status, 'running');
  assert.equal(running.json().attempts, 1);

  const browserProcesses = descendants(child.pid!);
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  for (const pid of browserProcesses) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: Chromium exits by itself when its controlling pipe closes.
    }
  }

  // The page answers at once from now on; the job is still `running` under the dead worker's lease.
  pages['/slow'] = page('Slow', '<img src="/p.png">');
  assert.equal((await api.call('GET', `/api/v1/audits/${id}`)).json().status, 'running');

  taker = await buildAuditApp(loadAuditConfig({ ...api.env, AUDIT_CONCURRENCY: '1' }));
  await taker.ready();
  const job = await waitForJob(api, id, ['completed', 'failed'], 120_000);
  assert.equal(job.status, 'completed', job.error);
  assert.equal(job.attempts, 2, 'taken over once');
  assert.ok(job.result.findings.some((f: any) => f.ruleId === 'image-alt'));
  const { rows } = await api.sql.query(
    'SELECT status, worker, lease_until, result IS NOT NULL AS has_result FROM jobs WHERE id = $1',
    [id],
  );
  assert.deepEqual(rows[0], { status: 'completed', worker: null, lease_until: null, has_result: true });
  assert.equal(site.hits.filter((p) => p === '/slow').length, 2, 'the page was loaded once per attempt');
});
