import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { startDashboard, type DashboardServer, type SignedIn } from './harness.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';

/**
 * A dashboard downloaded as a PNG or a PDF (POST /api/v1/dashboards/:id/render), drawn in Chromium with the caller's
 * rights by a credential revoked once drawn. The instance draws one at a time here with one waiting
 * (DASHBOARD_RENDER_CONCURRENCY=1, DASHBOARD_RENDER_QUEUE=1) and gives a render 10 s: a widget sleeping in its data
 * source is what makes one slow, and the test waits for events (the query seen running, a render seen waiting).
 */
const TIMEOUT_SECONDS = 10;
let source: FreshDatabase;
let serviceDb: pg.Client;
let sourceDb: pg.Client;
let s: DashboardServer;
let viewer: SignedIn;
let stranger: SignedIn;
let dashboardId: number;
let slowId: number;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

before(async () => {
  source = await freshPostgres('downloadsrc');
  sourceDb = new pg.Client({ connectionString: source.url });
  await sourceDb.connect();
  await sourceDb.query(`CREATE TABLE sales (region text, product text, amount int);
    INSERT INTO sales VALUES ('north', 'apples', 12), ('south', 'plums', 7), ('south', 'figs', 4);`);
  s = await startDashboard('downloads', {
    DASHBOARD_RENDER_CONCURRENCY: '1',
    DASHBOARD_RENDER_QUEUE: '1',
    DASHBOARD_RENDER_TIMEOUT: String(TIMEOUT_SECONDS),
    DASHBOARD_SCHEDULER: 'false',
  });
  serviceDb = new pg.Client({ connectionString: s.database.url, options: '-c search_path=dashboard' });
  await serviceDb.connect();
  const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
  viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
  stranger = await s.signIn({ tenant: 'globex', role: 'owner' });
  const ds = await s.request('POST', '/api/v1/datasources', {
    as: admin,
    body: { name: 'Shop', slug: 'shop', type: 'postgres', connectionUrl: source.url, queryTimeoutSeconds: 30 },
  });
  assert.equal(ds.status, 201, JSON.stringify(ds.body));
  const made = await s.request('POST', '/api/v1/dashboards', {
    as: admin,
    body: {
      slug: 'regional',
      title: 'Regional sales: Q1 / "2026"',
      definition: {
        layout: { type: 'grid', columns: 12, rowHeight: 30 },
        dataSources: [{ id: ds.body.id }],
        parameters: [
          { name: 'region', type: 'choice', label: 'Region', choices: ['north', 'south'], default: 'north' },
          { name: 'rows', type: 'choice', label: 'Rows', choices: ['2', '10'], default: '2' },
          { name: 'period', type: 'time_range', label: 'Period', default: '7d' },
        ],
        widgets: [
          {
            id: 'products',
            type: 'table',
            title: 'Products',
            position: { x: 0, y: 0, w: 6, h: 3 },
            dataSourceId: ds.body.id,
            query: 'SELECT product, amount FROM sales WHERE region = :region ORDER BY product',
          },
          {
            id: 'numbers',
            type: 'table',
            title: 'Numbers',
            position: { x: 6, y: 0, w: 6, h: 3 },
            dataSourceId: ds.body.id,
            query: 'SELECT n FROM generate_series(1, CAST(:rows AS int)) n',
          },
          { id: 'about', type: 'text', position: { x: 0, y: 3, w: 12, h: 2 }, options: { markdown: 'Units sold.' } },
        ],
      },
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  dashboardId = made.body.id;
  const slow = await s.request('POST', '/api/v1/dashboards', {
    as: admin,
    body: {
      slug: 'slow',
      title: 'Slow',
      definition: {
        layout: { type: 'grid', columns: 12, rowHeight: 30 },
        dataSources: [{ id: ds.body.id }],
        widgets: [
          {
            id: 'sleepy',
            type: 'stat',
            title: 'Sleepy',
            position: { x: 0, y: 0, w: 4, h: 3 },
            dataSourceId: ds.body.id,
            query: 'SELECT 1 AS one FROM pg_sleep(25)',
          },
        ],
      },
    },
  });
  assert.equal(slow.status, 201, JSON.stringify(slow.body));
  slowId = slow.body.id;
});

after(async () => {
  await serviceDb?.end();
  // The slow widget's query may still sleep in the source (its request outlives the closed browser): ended here.
  await sourceDb?.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(25)%'
    AND pid <> pg_backend_pid()`);
  await sourceDb?.end();
  await s?.close();
  await source?.drop();
});

/** POST …/render as `who`, the answer's bytes kept as they are. */
async function render(who: SignedIn, id: number, body: unknown) {
  const res = await s.app.inject({
    method: 'POST',
    url: `/api/v1/dashboards/${id}/render`,
    headers: { ...who.headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  const json = () => JSON.parse(res.body);
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, json };
}

/** Polls `check` every 50 ms until it holds (an event in another process), for at most `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`${what}: not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const metric = async (name: string) => {
  const text = (await s.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
};

describe('downloading a dashboard as a PNG or a PDF', () => {
  test('a viewer gets a PNG 1,280 px wide, named after the title; the parameters given are the ones drawn', async () => {
    const two = await render(viewer, dashboardId, { format: 'png', parameters: { region: 'south' } });
    assert.equal(two.status, 200, two.bytes.toString());
    assert.equal(two.headers['content-type'], 'image/png');
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(two.headers['content-disposition'], `attachment; filename="regional-sales-q1-2026-${today}.png"`);
    assert.equal(two.headers['cache-control'], 'no-store');
    assert.deepEqual([...two.bytes.subarray(0, 8)], PNG, 'PNG signature');
    assert.equal(two.bytes.readUInt32BE(16), 1280, 'as wide as the page was drawn');
    assert.ok(two.bytes.length > 10_000, `a real picture, not a blank: ${two.bytes.length} bytes`);
    mkdirSync('test-artifacts/dashboard-web', { recursive: true });
    writeFileSync('test-artifacts/dashboard-web/download-south.png', two.bytes);
    // Ten rows instead of two: a picture grows each row of the grid to its tallest widget, so it is taller.
    const ten = await render(viewer, dashboardId, { format: 'png', parameters: { region: 'south', rows: '10' } });
    assert.equal(ten.status, 200);
    writeFileSync('test-artifacts/dashboard-web/download-ten-rows.png', ten.bytes);
    const heights = [two.bytes.readUInt32BE(20), ten.bytes.readUInt32BE(20)];
    assert.ok(heights[1]! > heights[0]! + 100, `ten rows drawn make the picture taller: ${heights.join(' then ')} px`);
  });

  test('a PDF: pages 960 pt wide, the proportions of Metabase’s', async () => {
    const r = await render(viewer, dashboardId, {
      format: 'pdf',
      parameters: { period: '30d' },
      timezone: 'Asia/Tokyo',
    });
    assert.equal(r.status, 200, r.bytes.toString());
    assert.equal(r.headers['content-type'], 'application/pdf');
    assert.match(
      String(r.headers['content-disposition']),
      /^attachment; filename="regional-sales-q1-2026-\d{4}-\d{2}-\d{2}\.pdf"$/,
    );
    assert.equal(r.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    writeFileSync('test-artifacts/dashboard-web/download.pdf', r.bytes);
    const text = r.bytes.toString('latin1');
    const boxes = [...text.matchAll(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.ok(boxes.length >= 1, 'at least one page');
    for (const [w, h] of boxes) {
      assert.equal(w, 960, '1,280 CSS pixels');
      assert.ok(Math.abs(h! - (960 * 21) / 17) < 1, `${h} pt tall`);
    }
  });

  test('refused: an unknown format or parameter, a value not offered, a bad zone; another tenant sees no dashboard', async () => {
    const cases: [unknown, RegExp][] = [
      [{ format: 'gif' }, /format/],
      [{}, /format/],
      [{ format: 'png', parameters: { nope: 'x' } }, /parameters\.nope: the dashboard has no such parameter/],
      [{ format: 'png', parameters: { region: 'west' } }, /parameters\.region: must be one of north, south/],
      [{ format: 'png', parameters: { period: 'yesterday' } }, /parameters\.period: must be one of 15m/],
      [{ format: 'png', timezone: 'Mars/Olympus' }, /timezone: "Mars\/Olympus" is not an IANA time zone/],
      [{ format: 'png', extra: true }, /extra|additional/],
    ];
    for (const [body, message] of cases) {
      const r = await render(viewer, dashboardId, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.bytes}`);
      assert.equal(r.json().error.code, 'VALIDATION_ERROR');
      assert.match(r.json().error.message, message, JSON.stringify(body));
    }
    const other = await render(stranger, dashboardId, { format: 'png' });
    assert.equal(other.status, 404);
    assert.equal(other.json().error.code, 'NOT_FOUND');
    const anonymous = await s.app.inject({
      method: 'POST',
      url: `/api/v1/dashboards/${dashboardId}/render`,
      headers: { 'content-type': 'application/json' },
      payload: '{"format":"png"}',
    });
    assert.equal(anonymous.statusCode, 401);
  });

  test('one render at a time with one waiting: a third is 503 with Retry-After; a slow render ends at its time in 503', async () => {
    const started = Date.now();
    const slow = render(viewer, slowId, { format: 'png' });
    // The slow widget's query is running in the source: the render holds the only slot.
    await until('the slow query running', async () => {
      const r = await sourceDb.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(25)%' AND pid <> pg_backend_pid()`,
      );
      return r.rows[0].n > 0;
    });
    const waiting = render(viewer, dashboardId, { format: 'png' });
    await until('a render waiting for the slot', async () => (await metric('dashboard_renders_waiting')) === 1);
    const refused = await render(viewer, dashboardId, { format: 'pdf' });
    assert.equal(refused.status, 503, refused.bytes.toString());
    assert.equal(refused.json().error.code, 'UNAVAILABLE');
    assert.match(refused.json().error.message, /try again shortly/);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(await metric('dashboard_renders_refused_total'), 1);

    const late = await slow;
    assert.equal(late.status, 503, late.bytes.toString());
    assert.equal(late.json().error.code, 'UNAVAILABLE');
    assert.match(late.json().error.message, new RegExp(`took longer than ${TIMEOUT_SECONDS} s`));
    const took = Date.now() - started;
    assert.ok(
      took >= TIMEOUT_SECONDS * 1000 && took < 20_000,
      `answered at the render's time, not the query's: ${took} ms`,
    );
    // The one waiting got the slot once the slow one gave up, and was drawn.
    const drawn = await waiting;
    assert.equal(drawn.status, 200, drawn.bytes.toString());
    assert.deepEqual([...drawn.bytes.subarray(0, 8)], PNG);
    assert.equal(await metric('dashboard_renders_running'), 0);
  });

  test('every download is in the audit log; each credential was a read-only session of the caller, revoked after', async () => {
    const sessions = await serviceDb.query(
      `SELECT user_id::int AS user_id, revoked_at IS NOT NULL AS revoked, revoked_why FROM sessions
        WHERE provider = 'download-render'`,
    );
    assert.equal(sessions.rows.length, 5, 'three drawn, one past its time, one drawn after waiting');
    for (const row of sessions.rows)
      assert.deepEqual(row, { user_id: viewer.userId, revoked: true, revoked_why: 'render done' });
    const audit = await serviceDb.query(
      `SELECT user_id::int AS user_id, target_id, details FROM audit_log WHERE action = 'dashboard.render' ORDER BY id`,
    );
    const outcomes = audit.rows.map((r) => `${r.target_id} ${r.details.format} ${r.details.outcome}`);
    assert.deepEqual(outcomes, [
      `${dashboardId} png ok`,
      `${dashboardId} png ok`,
      `${dashboardId} pdf ok`,
      `${slowId} png timeout`,
      `${dashboardId} png ok`,
    ]);
    assert.ok(audit.rows.every((r) => r.user_id === viewer.userId));
    assert.deepEqual(audit.rows[1].details.parameters, { region: 'south', rows: '10' });
    // Through the API, as an admin reads it.
    const admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    const log = await s.request('GET', '/api/v1/audit?action=dashboard.render', { as: admin });
    assert.equal(log.body.items.length, 5);
    assert.equal(log.body.items[0].targetName, 'Regional sales: Q1 / "2026"');
  });

  test('a download whose caller goes away leaves the queue, or stops its render and frees the slot at once, its credential revoked', async () => {
    // Over a real connection: only a closed socket tells the service its caller is gone.
    const post = (id: number, abort: AbortController) =>
      fetch(`${s.url}/api/v1/dashboards/${id}/render`, {
        method: 'POST',
        headers: { ...viewer.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ format: 'png' }),
        signal: abort.signal,
      }).then(
        () => assert.fail('an aborted download was answered'),
        (err: Error) => err.name,
      );
    const sessionsBefore = (
      await serviceDb.query(`SELECT max(id) AS id FROM sessions WHERE provider = 'download-render'`)
    ).rows[0].id;
    const auditBefore = (await serviceDb.query(`SELECT max(id) AS id FROM audit_log`)).rows[0].id;
    const slowAbort = new AbortController();
    const slow = post(slowId, slowAbort);
    await until('the slow query running', async () => {
      const r = await sourceDb.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(25)%' AND pid <> pg_backend_pid()`,
      );
      return r.rows[0].n > 0;
    });
    const queuedAbort = new AbortController();
    const queued = post(dashboardId, queuedAbort);
    await until('a render waiting for the slot', async () => (await metric('dashboard_renders_waiting')) === 1);

    // Gone while waiting: out of the queue at once, not when the slot frees.
    queuedAbort.abort();
    assert.equal(await queued, 'AbortError');
    await until('the queue empty', async () => (await metric('dashboard_renders_waiting')) === 0, 3_000);
    assert.equal(await metric('dashboard_renders_running'), 1);

    // Gone while drawing: the render stops and the slot is free long before the render's time (10 s).
    const goneAt = Date.now();
    slowAbort.abort();
    assert.equal(await slow, 'AbortError');
    await until('the slot free', async () => (await metric('dashboard_renders_running')) === 0, 3_000);
    const next = await render(viewer, dashboardId, { format: 'png' });
    assert.equal(next.status, 200, next.bytes.toString());
    const took = Date.now() - goneAt;
    assert.ok(took < TIMEOUT_SECONDS * 1000, `the next download did not wait for the slow one's time: ${took} ms`);

    // The stopped render's credential and the next one's: both revoked; the queued one never had one.
    const sessions = await serviceDb.query(
      `SELECT user_id::int AS user_id, revoked_at IS NOT NULL AS revoked, revoked_why FROM sessions
        WHERE provider = 'download-render' AND id > $1`,
      [sessionsBefore],
    );
    assert.equal(sessions.rows.length, 2);
    for (const row of sessions.rows)
      assert.deepEqual(row, { user_id: viewer.userId, revoked: true, revoked_why: 'render done' });
    const outcomes = await until('the three downloads in the audit log', async () => {
      const r = await serviceDb.query(`SELECT count(*)::int AS n FROM audit_log WHERE id > $1`, [auditBefore]);
      return r.rows[0].n >= 3;
    }).then(() =>
      serviceDb.query(
        `SELECT target_id, details->>'outcome' AS outcome FROM audit_log
          WHERE action = 'dashboard.render' AND id > $1 ORDER BY target_id, outcome`,
        [auditBefore],
      ),
    );
    assert.deepEqual(
      outcomes.rows.map((r) => `${r.target_id} ${r.outcome}`).sort(),
      [`${dashboardId} aborted`, `${dashboardId} ok`, `${slowId} aborted`].sort(),
    );
  });
});
