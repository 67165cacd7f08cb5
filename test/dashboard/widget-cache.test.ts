import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { startDashboard, type Answer, type DashboardServer, type SignedIn } from './harness.ts';

/**
 * Widget runs share one trip to the database when identical ones run at once, and keep their rows for the widget's
 * cacheSeconds. The trips are counted by the data source itself: each run of the widget's SQL takes the next value
 * of a sequence on the real PostgreSQL, so the sequence's last value is the number of trips made.
 */
describe('widget results: single flight and cache', () => {
  let target: FreshDatabase;
  let s: DashboardServer;
  let admin: SignedIn;
  let editor: SignedIn;
  let viewer: SignedIn;
  let sourceId: number;
  let dashboardId: number;
  let etag: string;
  let lock: pg.Client;

  // The lock (held by the test) keeps the first run waiting inside the database while the others arrive.
  const FLIGHT_SQL = `SELECT nextval('flight_trips') AS trip, :country::text AS country FROM (SELECT pg_advisory_xact_lock_shared(42)) AS l`;
  const CACHED_SQL = `SELECT nextval('cache_trips') AS trip`;
  const widget = (id: string, query: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: 'table',
    position: { x: 0, y: 0, w: 6, h: 4 },
    dataSourceId: sourceId,
    query,
    ...extra,
  });
  const definition = (widgets: unknown[]) => ({
    layout: { type: 'grid', columns: 12, rowHeight: 40 },
    dataSources: [{ id: sourceId }],
    widgets,
  });
  const trips = async (sequence: string) =>
    Number(
      (await lock.query(`SELECT last_value, is_called FROM ${sequence}`)).rows.map((r) =>
        r.is_called ? r.last_value : 0,
      )[0],
    );
  const served = async (kind: string) => {
    const res = await s.app.inject({ method: 'GET', url: '/metrics' });
    const m = new RegExp(`^dashboard_widget_runs_total\\{served="${kind}"\\} (\\d+)$`, 'm').exec(res.body);
    return m ? Number(m[1]) : 0;
  };
  /** Waits (on the service's own count, not on a clock) until `n` more runs have joined one under way. */
  const untilShared = async (from: number, n: number, answers: Promise<Answer>[]) => {
    let settled = 0;
    for (const a of answers) void a.then(() => settled++);
    while ((await served('shared')) < from + n) {
      // A run that answered before the lock was released failed: say how instead of waiting for ever.
      if (settled > 0) assert.fail(`a run answered early: ${JSON.stringify((await Promise.race(answers)).body)}`);
      await new Promise((r) => setImmediate(r));
    }
  };
  const run = (widgetId: string, who: SignedIn, body: Record<string, unknown> = {}) =>
    s.request('POST', `/api/v1/dashboards/${dashboardId}/widgets/${widgetId}/run`, { as: who, body });

  before(async () => {
    target = await freshPostgres('dswidgetcache');
    lock = new pg.Client({ connectionString: target.url });
    await lock.connect();
    await lock.query('CREATE SEQUENCE flight_trips; CREATE SEQUENCE cache_trips;');
    s = await startDashboard('dswidgetcache');
    admin = await s.signIn({ tenant: 'acme', role: 'admin' });
    editor = await s.signIn({ tenant: 'acme', role: 'editor' });
    viewer = await s.signIn({ tenant: 'acme', role: 'viewer' });
    const ds = await s.request('POST', '/api/v1/datasources', {
      as: admin,
      body: {
        name: 'Shop',
        slug: 'shop',
        type: 'postgres',
        connectionUrl: target.url,
        readOnly: false,
        maxConnections: 20,
      },
    });
    assert.equal(ds.status, 201, JSON.stringify(ds.body));
    sourceId = ds.body.id;
    const d = await s.request('POST', '/api/v1/dashboards', {
      as: editor,
      body: {
        slug: 'cache',
        title: 'Cache',
        definition: definition([widget('flight', FLIGHT_SQL), widget('kept', CACHED_SQL, { cacheSeconds: 600 })]),
      },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    dashboardId = d.body.id;
    etag = String(d.headers.etag);
  });
  after(async () => {
    await lock?.end();
    await s?.close();
    await target?.drop();
  });

  test('twelve identical runs at once make one trip to the database, and every caller gets its rows', async () => {
    const before = await served('shared');
    await lock.query('SELECT pg_advisory_lock(42)');
    const answers = Array.from({ length: 12 }, () => run('flight', viewer, { params: { country: 'France' } }));
    await untilShared(before, 11, answers);
    await lock.query('SELECT pg_advisory_unlock(42)');
    const done = await Promise.all(answers);
    for (const r of done) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.rows, [{ trip: '1', country: 'France' }]);
    }
    assert.deepEqual(done.map((r) => r.body.served).sort(), ['database', ...Array(11).fill('shared')]);
    assert.equal(new Set(done.map((r) => r.body.cachedAt)).size, 1, 'one reading, one time');
    assert.equal(await trips('flight_trips'), 1, 'the sequence moved once: one trip');
  });

  test('runs differing in values or in the role asking are trips of their own; a finished flight is not reused without a cache time', async () => {
    const start = await trips('flight_trips');
    const before = await served('shared');
    await lock.query('SELECT pg_advisory_lock(42)');
    const answers: Promise<Answer>[] = [
      run('flight', viewer, { params: { country: 'France' } }),
      run('flight', viewer, { params: { country: 'France' } }),
      run('flight', viewer, { params: { country: 'Spain' } }),
      run('flight', editor, { params: { country: 'France' } }),
    ];
    await untilShared(before, 1, answers);
    await lock.query('SELECT pg_advisory_unlock(42)');
    const done = await Promise.all(answers);
    assert.deepEqual(
      done.map((r) => r.status),
      [200, 200, 200, 200],
    );
    assert.equal(
      await trips('flight_trips'),
      start + 3,
      'France as a viewer once, Spain once, France as an editor once',
    );
    assert.equal(done[0]!.body.rows[0].trip, done[1]!.body.rows[0].trip);
    // The widget keeps nothing (no cacheSeconds): the next view reads again.
    const again = await run('flight', viewer, { params: { country: 'France' } });
    assert.equal(again.body.served, 'database');
    assert.equal(await trips('flight_trips'), start + 4);
  });

  test("a widget's cache time keeps its rows: later views say when they were read, refresh reads again", async () => {
    const first = await run('kept', viewer);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.served, 'database');
    assert.deepEqual(first.body.rows, [{ trip: '1' }]);
    const second = await run('kept', viewer);
    assert.equal(second.body.served, 'cache');
    assert.deepEqual(second.body.rows, [{ trip: '1' }]);
    assert.equal(second.body.cachedAt, first.body.cachedAt);
    assert.equal(await trips('cache_trips'), 1);

    const refreshed = await run('kept', viewer, { refresh: true });
    assert.equal(refreshed.body.served, 'database');
    assert.deepEqual(refreshed.body.rows, [{ trip: '2' }]);
    assert.ok(refreshed.body.cachedAt >= first.body.cachedAt);
    const after = await run('kept', viewer);
    assert.equal(after.body.served, 'cache');
    assert.deepEqual(after.body.rows, [{ trip: '2' }], 'the refreshed rows are the ones kept');
    assert.equal(await trips('cache_trips'), 2);

    // Another role's view is its own entry; a changed statement is another key, never the old rows.
    assert.equal((await run('kept', editor)).body.served, 'database');
    const changed = await s.request('PUT', `/api/v1/dashboards/${dashboardId}`, {
      as: editor,
      headers: { 'if-match': etag },
      body: {
        definition: definition([
          widget('flight', FLIGHT_SQL),
          widget('kept', `${CACHED_SQL}, 'v2' AS version`, { cacheSeconds: 600 }),
        ]),
      },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    etag = String(changed.headers.etag);
    const edited = await run('kept', viewer);
    assert.equal(edited.body.served, 'database');
    assert.deepEqual(edited.body.rows, [{ trip: '4', version: 'v2' }]);
  });

  test('a bad cache time or refresh is a clear 400 naming the field', async () => {
    for (const [cacheSeconds, why] of [
      [-1, /cacheSeconds/],
      [86_401, /cacheSeconds/],
      ['60', /cacheSeconds/],
      [1.5, /cacheSeconds/],
    ] as const) {
      const r = await s.request('PUT', `/api/v1/dashboards/${dashboardId}`, {
        as: editor,
        headers: { 'if-match': etag },
        body: { definition: definition([widget('kept', CACHED_SQL, { cacheSeconds })]) },
      });
      assert.equal(r.status, 400, `${cacheSeconds}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, why);
    }
    for (const body of [{ refresh: 'yes' }, { refresh: 1 }, { refresh: true, other: 1 }]) {
      const r = await run('kept', viewer, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.match(r.body.error.message, /refresh|other|propert/);
    }
  });
});
