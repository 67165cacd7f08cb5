import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { page, serveSite, startAudit, waitForJob, type AuditHarness, type TestSite } from './support.ts';

let h: AuditHarness;
let site: TestSite;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

before(async () => {
  // One job at a time, so a held page keeps the others pending.
  h = await startAudit({ AUDIT_CONCURRENCY: '1', AUDIT_MAX_QUEUED_PER_KEY: '3', AUDIT_MAX_ATTEMPTS: '2' }, 'auditjobs');
  site = await serveSite({
    '/clean': page('Clean', '<p>Fine.</p>'),
    '/dirty': page('Dirty', '<img src="/p.png">'),
    '/held': { body: page('Held', '<p>late</p>'), holdUntil: held },
  });
});

after(async () => {
  release();
  await site?.close();
  await h?.close();
});

test('a job is answered pending at once, runs, and carries its result; its reports are JSON, HTML and OpenACR', async () => {
  const created = await h.call('POST', '/api/v1/audits', {
    url: `${site.origin}/dirty`,
    config: { level: 'AA', version: '2.1' },
  });
  assert.equal(created.statusCode, 202, created.body);
  const { id, ...rest } = created.json();
  assert.deepEqual(rest, { status: 'pending' });
  assert.equal(created.headers.location, `/api/v1/audits/${id}`);

  const early = await h.call('GET', `/api/v1/audits/${id}/report`);
  if (early.statusCode !== 200) {
    assert.equal(early.statusCode, 409);
    assert.match(early.json().error.message, /its report exists once it has completed/);
  }

  const job = await waitForJob(h, id, ['completed', 'failed']);
  assert.equal(job.status, 'completed', job.error);
  assert.equal(job.url, `${site.origin}/dirty`);
  assert.equal(job.attempts, 1);
  assert.equal(job.error, null);
  assert.ok(
    Date.parse(job.createdAt) <= Date.parse(job.startedAt) && Date.parse(job.startedAt) <= Date.parse(job.finishedAt),
  );
  assert.equal(job.result.targetUrl, `${site.origin}/dirty`);
  assert.equal(job.result.wcagVersion, '2.1');
  assert.equal(job.result.wcagLevel, 'AA');
  assert.equal(job.result.stats.totalPages, 1);
  assert.ok(job.result.stats.totalFindings >= 1);
  assert.ok(job.result.findings.some((f: any) => f.ruleId === 'image-alt'));

  const json = await h.call('GET', `/api/v1/audits/${id}/report`);
  assert.equal(json.statusCode, 200);
  assert.match(json.headers['content-type'] as string, /application\/json/);
  assert.deepEqual(json.json(), job.result);
  const explicit = await h.call('GET', `/api/v1/audits/${id}/report?format=json`);
  assert.deepEqual(explicit.json(), job.result);

  const html = await h.call('GET', `/api/v1/audits/${id}/report?format=html`);
  assert.equal(html.statusCode, 200);
  assert.match(html.headers['content-type'] as string, /text\/html/);
  assert.match(html.body, /<html[^>]*lang="en"/);
  assert.match(html.body, /1\.1\.1/);

  const yaml = await h.call('GET', `/api/v1/audits/${id}/openacr`);
  assert.equal(yaml.statusCode, 200, yaml.body);
  const acr = parseYaml(yaml.body);
  assert.equal(acr.product.name, `${site.origin}/dirty`);
  assert.equal(typeof acr.report_date, 'string');
  assert.ok(
    acr.chapters.success_criteria_level_a.criteria.some(
      (c: any) => c.num === '1.1.1' && c.components[0].adherence.level === 'does-not-support',
    ),
  );
  const acrJson = await h.call(
    'GET',
    `/api/v1/audits/${id}/openacr?format=json&product_name=Shop&author_email=a11y@example.com`,
  );
  assert.equal(acrJson.statusCode, 200);
  assert.equal(acrJson.json().product.name, 'Shop');
  assert.equal(acrJson.json().author.email, 'a11y@example.com');
});

/** A port on 127.0.0.1 that nothing listens on (taken from the system, then let go): connections are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a job keeps failing ends failed with the reason after its attempts', async () => {
  // Not port 9: Chromium never connects to it (ERR_UNSAFE_PORT), which is no network failure.
  const { id } = (await h.call('POST', '/api/v1/audits', { url: `http://127.0.0.1:${await closedPort()}/` })).json();
  const job = await waitForJob(h, id, ['failed', 'completed']);
  assert.equal(job.status, 'failed');
  assert.equal(job.attempts, 2, job.error);
  assert.match(job.error, /could not be loaded \(connection failed: connect ECONNREFUSED/);
  assert.equal(job.result, undefined);
  const report = await h.call('GET', `/api/v1/audits/${id}/report`);
  assert.equal(report.statusCode, 409);
  assert.match(report.json().error.message, /failed/);
});

test('a port browsers refuse (0, 9, 6000, …) fails the job at once, saying why: trying again cannot help', async () => {
  for (const port of [0, 9, 6000]) {
    const { id } = (await h.call('POST', '/api/v1/audits', { url: `http://127.0.0.1:${port}/` })).json();
    const job = await waitForJob(h, id, ['failed', 'completed']);
    assert.equal(job.status, 'failed', `port ${port}`);
    assert.equal(job.attempts, 1, `port ${port} is not tried again`);
    assert.match(job.error, /ERR_UNSAFE_PORT\): browsers refuse to connect to this port/);
  }
});

test('cancel: a pending job is cancelled and never runs; a running one is stopped and its page closed; the queue limit holds per key', async () => {
  const running = (await h.call('POST', '/api/v1/audits', { url: `${site.origin}/held` })).json().id;
  await site.requested('/held');
  assert.equal((await h.call('GET', `/api/v1/audits/${running}`)).json().status, 'running');
  const pending = (await h.call('POST', '/api/v1/audits', { url: `${site.origin}/clean?never` })).json().id;
  const third = (await h.call('POST', '/api/v1/audits', { url: `${site.origin}/clean?third` })).json().id;
  const over = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/clean` });
  assert.equal(over.statusCode, 429);
  assert.match(over.json().error.message, /at most 3/);
  assert.ok(over.headers['retry-after']);
  const otherKey = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/clean?other` }, h.otherKey);
  assert.equal(otherKey.statusCode, 202, 'the limit is per key');

  // With the JSON content type some clients put on every request, and no body.
  const cancelled = await h.app.inject({
    method: 'DELETE',
    url: `/api/v1/audits/${pending}`,
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
  });
  assert.equal(cancelled.statusCode, 200);
  assert.equal(cancelled.json().status, 'cancelled');
  assert.ok(cancelled.json().finishedAt);

  const stop = await h.call('DELETE', `/api/v1/audits/${running}`);
  assert.equal(stop.statusCode, 200);
  assert.equal(stop.json().status, 'cancelled');
  await site.abandoned('/held');

  const next = await waitForJob(h, third, ['completed', 'failed']);
  assert.equal(next.status, 'completed');
  assert.equal(
    (await waitForJob(h, otherKey.json().id, ['completed', 'failed'], 60_000, h.otherKey)).status,
    'completed',
  );
  assert.equal(
    (await h.call('GET', `/api/v1/audits/${running}`)).json().status,
    'cancelled',
    'a stopped job stays cancelled',
  );
  assert.equal((await h.call('GET', `/api/v1/audits/${pending}`)).json().status, 'cancelled');
  assert.ok(!site.hits.includes('/clean?never'), 'the cancelled pending job never ran');

  const again = await h.call('DELETE', `/api/v1/audits/${pending}`);
  assert.equal(again.statusCode, 200, 'cancelling twice answers the cancelled job');
  const finished = await h.call('DELETE', `/api/v1/audits/${third}`);
  assert.equal(finished.statusCode, 409);
  assert.match(finished.json().error.message, /already completed/);
  assert.equal((await h.call('DELETE', '/api/v1/audits/no-such-job')).statusCode, 404);
});

test("the list is the caller's own jobs, newest first, paged with an opaque cursor; others' jobs are not found", async () => {
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const res = await h.call('POST', '/api/v1/audits', { url: `${site.origin}/clean?list=${n}` });
    assert.equal(res.statusCode, 202, res.body);
    ids.push(res.json().id);
    await waitForJob(h, res.json().id, ['completed', 'failed']);
  }
  const first = await h.call('GET', '/api/v1/audits?limit=2');
  assert.equal(first.statusCode, 200);
  const page1 = first.json();
  assert.deepEqual(
    page1.items.map((j: any) => j.id),
    [ids[2], ids[1]],
  );
  assert.equal(page1.items[0].result, undefined, 'lists carry no results');
  assert.equal(typeof page1.next, 'string');
  const page2 = (await h.call('GET', `/api/v1/audits?limit=2&cursor=${page1.next}`)).json();
  assert.equal(page2.items[0].id, ids[0]);
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = (await h.call('GET', `/api/v1/audits?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
    all.push(...res.items);
    cursor = res.next;
  } while (cursor);
  const created = all.map((j) => Date.parse(j.createdAt));
  assert.deepEqual(
    created,
    [...created].sort((a, b) => b - a),
    'newest first',
  );
  assert.equal(new Set(all.map((j) => j.id)).size, all.length, 'no job twice across pages');
  const completed = (await h.call('GET', '/api/v1/audits?status=completed&limit=100')).json();
  assert.ok(ids.every((id) => completed.items.some((j: any) => j.id === id)));
  assert.ok(completed.items.every((j: any) => j.status === 'completed'));

  const theirs = (await h.call('GET', '/api/v1/audits', undefined, h.otherKey)).json();
  assert.ok(theirs.items.every((j: any) => !ids.includes(j.id)));
  assert.equal((await h.call('GET', `/api/v1/audits/${ids[0]}`, undefined, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('DELETE', `/api/v1/audits/${ids[0]}`, undefined, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('GET', `/api/v1/audits/${ids[0]}/report`, undefined, h.otherKey)).statusCode, 404);
});
