import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { page, serveSite, startAudit, type AuditHarness, type TestSite } from './support.ts';

/** Sites: a URL and its settings, checked as an audit request is, run now with its progress shown, and scheduled. */

let h: AuditHarness;
let web: TestSite;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

before(async () => {
  h = await startAudit({ AUDIT_CONCURRENCY: '1', AUDIT_MAX_PAGES: '10' }, 'auditsites');
  web = await serveSite({
    '/': page('Home', '<a href="/a">A</a> <a href="/b">B</a>'),
    '/a': { body: page('A', '<img src="/x.png">'), holdUntil: held },
    '/b': page('B', '<p>B</p>'),
    '/one': page('One', '<p>Alone.</p>'),
  });
});

after(async () => {
  release();
  await web?.close();
  await h?.close();
});

const siteOf = async (id: string, key = h.key) => (await h.call('GET', `/api/v1/sites/${id}`, undefined, key)).json();

/** Polls the site until `done` says so (the API offers no push). */
async function waitForSite(id: string, done: (site: any) => boolean): Promise<any> {
  for (;;) {
    const site = await siteOf(id);
    if (done(site)) return site;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a site is created, listed, read, replaced and deleted; its settings are kept as asked, in one spelling', async () => {
  const created = await h.call('POST', '/api/v1/sites', {
    name: '  Shop ',
    url: `${web.origin}/one`,
    config: { level: 'aaa', version: 2.1, crawl: { enabled: false, maxPages: 3 } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const site = created.json();
  assert.equal(created.headers.location, `/api/v1/sites/${site.id}`);
  assert.equal(site.name, 'Shop');
  assert.equal(site.url, `${web.origin}/one`);
  assert.deepEqual(site.config, { level: 'AAA', version: '2.1', crawl: { enabled: false, maxPages: 3 } });
  assert.equal(site.latestRun, null);
  assert.equal(site.schedule, null);

  const list = (await h.call('GET', '/api/v1/sites')).json();
  assert.ok(list.items.some((s: any) => s.id === site.id));
  assert.equal((await h.call('GET', '/api/v1/sites', undefined, h.otherKey)).json().items.length, 0);
  assert.equal((await h.call('GET', `/api/v1/sites/${site.id}`, undefined, h.otherKey)).statusCode, 404);

  const replaced = await h.call('PUT', `/api/v1/sites/${site.id}`, { name: 'Shop 2', url: `${web.origin}/` });
  assert.equal(replaced.statusCode, 200, replaced.body);
  assert.equal(replaced.json().name, 'Shop 2');
  assert.deepEqual(replaced.json().config, {});
  assert.equal(
    (await h.call('PUT', `/api/v1/sites/${site.id}`, { name: 'x', url: `${web.origin}/` }, h.otherKey)).statusCode,
    404,
  );
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}`, undefined, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}`)).statusCode, 204);
  assert.equal((await h.call('GET', `/api/v1/sites/${site.id}`)).statusCode, 404);
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}`)).statusCode, 404);
});

test('bad sites are 400 naming what is wrong: the URL, its scheme, an internal address, the settings, the name', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ name: 'x', url: 'not a url' }, /url must be an absolute http or https URL/],
    [{ name: 'x', url: 'ftp://example.com/' }, /url must use http or https; got ftp/],
    [{ name: 'x', url: 'javascript:alert(1)' }, /url must use http or https/],
    [{ name: 'x', url: 'http://10.0.0.1/' }, /url cannot be audited: refused: 10\.0\.0\.1 is a private address/],
    [{ name: 'x', url: 'http://169.254.169.254/' }, /cloud metadata/],
    [{ name: 'x', url: `${web.origin}/`, config: { level: 'AAAA' } }, /level/],
    [
      { name: 'x', url: `${web.origin}/`, config: { crawl: { maxPages: 11 } } },
      /at most 10 \(this service's AUDIT_MAX_PAGES\)/,
    ],
    [{ name: 'x', url: `${web.origin}/`, config: { wcagLevel: 'AA' } }, /unknown property "wcagLevel"/],
    [{ name: '   ', url: `${web.origin}/` }, /name/],
    [{ name: 'a\nb', url: `${web.origin}/` }, /name/],
    [{ name: 'x'.repeat(201), url: `${web.origin}/` }, /name/],
    [{ url: `${web.origin}/` }, /name/],
    [{ name: 'x', url: `${web.origin}/`, extra: 1 }, /unknown property "extra"/],
  ];
  for (const [body, message] of cases) {
    const res = await h.call('POST', '/api/v1/sites', body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
    assert.match(res.json().error.message, message, JSON.stringify(body));
  }
  const site = (await h.call('POST', '/api/v1/sites', { name: 'x', url: `${web.origin}/one` })).json();
  const bad = await h.call('PUT', `/api/v1/sites/${site.id}`, { name: 'x', url: 'http://[::1]/' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().error.message, /loopback/);
  assert.equal((await h.call('GET', `/api/v1/sites/${site.id}`)).json().url, `${web.origin}/one`);
  await h.call('DELETE', `/api/v1/sites/${site.id}`);
});

test('run now queues an audit of the site; its progress is pages done of at most crawl.maxPages, then the score', async () => {
  const site = (
    await h.call('POST', '/api/v1/sites', {
      name: 'Crawled',
      url: `${web.origin}/`,
      config: { crawl: { depth: 1, maxPages: 3 } },
    })
  ).json();
  const run = await h.call('POST', `/api/v1/sites/${site.id}/runs`);
  assert.equal(run.statusCode, 202, run.body);
  const { id } = run.json();
  assert.equal(run.headers.location, `/api/v1/audits/${id}`);
  const again = await h.call('POST', `/api/v1/sites/${site.id}/runs`);
  assert.equal(again.statusCode, 409, 'a second run while one is pending or running');
  assert.match(again.json().error.message, /already pending or running/);
  assert.equal((await h.call('POST', `/api/v1/sites/${site.id}/runs`, undefined, h.otherKey)).statusCode, 404);

  await web.requested('/a');
  const midway = await waitForSite(site.id, (s) => s.latestRun?.pagesDone === 1);
  assert.equal(midway.latestRun.id, id);
  assert.equal(midway.latestRun.status, 'running');
  assert.equal(midway.latestRun.pagesTotal, 3, 'crawl.maxPages');
  assert.equal(midway.lastCompleted, null);
  release();
  const done = await waitForSite(site.id, (s) => ['completed', 'failed'].includes(s.latestRun.status));
  assert.equal(done.latestRun.status, 'completed', done.latestRun.error);
  assert.equal(done.latestRun.pagesDone, 3);
  assert.equal(done.latestRun.pagesTotal, 3);
  assert.equal(typeof done.latestRun.score, 'number');
  assert.deepEqual(done.lastCompleted, done.latestRun);
  const job = (await h.call('GET', `/api/v1/audits/${id}`)).json();
  assert.equal(job.result.score, done.latestRun.score);
  assert.equal(job.result.stats.totalPages, 3);
  // Deleting the site keeps its run among the caller's audits.
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}`)).statusCode, 204);
  assert.equal((await h.call('GET', `/api/v1/audits/${id}`)).statusCode, 200);
});

test('a schedule is daily, weekly or cron in a time zone; its next run is answered; bad ones are 400', async () => {
  const site = (await h.call('POST', '/api/v1/sites', { name: 'Sched', url: `${web.origin}/one` })).json();
  const put = (body: unknown, key = h.key) => h.call('PUT', `/api/v1/sites/${site.id}/schedule`, body, key);

  const daily = await put({ kind: 'daily', time: '02:30', timeZone: 'Europe/Paris' });
  assert.equal(daily.statusCode, 200, daily.body);
  assert.equal(daily.json().cron, '30 2 * * *');
  assert.equal(daily.json().time, '02:30');
  const next = new Date(daily.json().nextRunAt);
  assert.ok(next.getTime() > Date.now() && next.getTime() <= Date.now() + 86_400_000 + 3_600_000);
  const parisTime = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' });
  assert.equal(parisTime.format(next), '02:30');

  const weekly = (await put({ kind: 'weekly', time: '23:05', weekday: 0, timeZone: 'UTC' })).json();
  assert.equal(weekly.cron, '5 23 * * 0');
  assert.equal(new Date(weekly.nextRunAt).getUTCDay(), 0);
  assert.equal(weekly.weekday, 0);

  const cron = (await put({ kind: 'cron', cron: '0  */6 * * 1-5', timeZone: 'UTC' })).json();
  assert.equal(cron.cron, '0 */6 * * 1-5');
  assert.equal(cron.time, null);
  assert.deepEqual((await siteOf(site.id)).schedule, cron);

  const off = (await put({ kind: 'daily', timeZone: 'UTC', enabled: false })).json();
  assert.equal(off.enabled, false);
  assert.equal(off.nextRunAt, null);
  assert.equal(off.time, '03:00');

  const cases: Array<[unknown, RegExp]> = [
    [{ kind: 'daily', timeZone: 'Mars/Olympus' }, /timeZone "Mars\/Olympus" is not an IANA time zone/],
    [{ kind: 'daily', time: '24:00', timeZone: 'UTC' }, /time/],
    [{ kind: 'weekly', weekday: 7, timeZone: 'UTC' }, /weekday/],
    [{ kind: 'cron', timeZone: 'UTC' }, /cron is required/],
    [{ kind: 'cron', cron: '61 * * * *', timeZone: 'UTC' }, /not a five-field cron expression/],
    [{ kind: 'cron', cron: '0 0 * * * *', timeZone: 'UTC' }, /not a five-field cron expression/],
    [{ kind: 'cron', cron: '* * * * *', timeZone: 'UTC' }, /more often than every 15 minutes/],
    [{ kind: 'cron', cron: '0 0 31 2 *', timeZone: 'UTC' }, /never runs/],
    [{ kind: 'daily', cron: '0 0 * * *', timeZone: 'UTC' }, /cron is for kind "cron"/],
    [{ kind: 'hourly', timeZone: 'UTC' }, /kind/],
    [{ kind: 'daily' }, /timeZone/],
  ];
  for (const [body, message] of cases) {
    const res = await put(body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.match(res.json().error.message, message, JSON.stringify(body));
  }
  assert.equal((await put({ kind: 'daily', timeZone: 'UTC' }, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}/schedule`, undefined, h.otherKey)).statusCode, 404);
  assert.equal((await h.call('DELETE', `/api/v1/sites/${site.id}/schedule`)).statusCode, 204);
  assert.equal((await siteOf(site.id)).schedule, null);
  await h.call('DELETE', `/api/v1/sites/${site.id}`);
});

test('a due schedule queues one run of the site with its settings, and moves to its next slot', async () => {
  const site = (
    await h.call('POST', '/api/v1/sites', { name: 'Due', url: `${web.origin}/one`, config: { level: 'A' } })
  ).json();
  await h.call('PUT', `/api/v1/sites/${site.id}/schedule`, { kind: 'daily', time: '04:00', timeZone: 'UTC' });
  // Three days of missed slots (every instance was down): one run, not three.
  await h.sql.query("UPDATE schedules SET next_run_at = now() - interval '3 days' WHERE site_id = $1", [site.id]);
  const ran = await waitForSite(site.id, (s) => s.latestRun?.status === 'completed');
  const { rows } = await h.sql.query('SELECT id, config FROM jobs WHERE site_id = $1', [site.id]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].config.wcagLevel, 'A');
  assert.equal(ran.schedule.lastJobId, rows[0].id);
  assert.ok(Date.parse(ran.schedule.nextRunAt) > Date.now());
  assert.equal(new Date(ran.schedule.nextRunAt).getUTCHours(), 4);
  await h.call('DELETE', `/api/v1/sites/${site.id}`);
});

test('a schedule that cannot be run is paused, saying why, and holds back no schedule due after it', async () => {
  const broken = (await h.call('POST', '/api/v1/sites', { name: 'Broken', url: `${web.origin}/one` })).json();
  const fine = (await h.call('POST', '/api/v1/sites', { name: 'Fine', url: `${web.origin}/one` })).json();
  for (const s of [broken, fine])
    await h.call('PUT', `/api/v1/sites/${s.id}/schedule`, { kind: 'daily', timeZone: 'UTC' });
  // A schedule stored by hand (or by an older version) that this code cannot read, due first.
  await h.sql.query(
    "UPDATE schedules SET kind = 'cron', cron = 'not a cron', next_run_at = now() - interval '2 minutes' WHERE site_id = $1",
    [broken.id],
  );
  await h.sql.query("UPDATE schedules SET next_run_at = now() - interval '1 minute' WHERE site_id = $1", [fine.id]);
  const ran = await waitForSite(fine.id, (s) => s.latestRun !== null);
  assert.equal(ran.schedule.lastJobId, ran.latestRun.id);
  const paused = await waitForSite(broken.id, (s) => s.schedule.enabled === false);
  assert.match(paused.schedule.lastError, /^paused: its cron "not a cron" gives no next run/);
  assert.equal(paused.latestRun, null);
});

test('a site keeps the deep audit and best-practice settings, and its runs take them; a non-boolean is 400', async () => {
  const created = await h.call('POST', '/api/v1/sites', {
    name: 'Deep',
    url: `${web.origin}/one`,
    config: { deep: true, bestPractices: true },
  });
  assert.equal(created.statusCode, 201, created.body);
  const site = created.json();
  assert.deepEqual(site.config, { deep: true, bestPractices: true });
  assert.deepEqual((await siteOf(site.id)).config, { deep: true, bestPractices: true });
  const run = await h.call('POST', `/api/v1/sites/${site.id}/runs`);
  assert.equal(run.statusCode, 202, run.body);
  const done = await waitForSite(site.id, (s) => ['completed', 'failed'].includes(s.latestRun.status));
  assert.equal(done.latestRun.status, 'completed', done.latestRun.error);
  const job = (await h.call('GET', `/api/v1/audits/${run.json().id}`)).json();
  assert.equal(job.config.deep, true, 'the run was a deep audit');
  assert.equal(job.config.bestPractices, true);
  assert.ok(job.result.bestPractices, 'best practices reported apart');
  assert.ok(
    job.result.rules.some((r: { ruleId: string }) => r.ruleId === 'keyboard-trap'),
    "the deep checks' rules ran",
  );

  const off = await h.call('PUT', `/api/v1/sites/${site.id}`, {
    name: 'Deep',
    url: `${web.origin}/one`,
    config: { deep: false },
  });
  assert.equal(off.statusCode, 200, off.body);
  assert.deepEqual(off.json().config, { deep: false });
  const bad = await h.call('POST', '/api/v1/sites', { name: 'x', url: `${web.origin}/one`, config: { deep: 'yes' } });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(bad.json().error.code, 'VALIDATION_ERROR');
  assert.match(bad.json().error.message, /deep/);
  await h.call('DELETE', `/api/v1/sites/${site.id}`);
});
