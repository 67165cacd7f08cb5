import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { foldCounts } from '../../src/ingest/read/rollup.ts';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

let h: IngestHarness;
let projectId: string;
let key: string;
let other: { projectId: string; key: string };
const HOUR = 3_600_000;
// Whole hours back from the start of this hour, so the test's events fall in known hours and days.
const base = Math.floor(Date.now() / HOUR) * HOUR;
const at = (hoursAgo: number, minute = 5) => new Date(base - hoursAgo * HOUR + minute * 60_000).toISOString();

const send = async (k: string, events: Record<string, unknown>[]) => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': k, 'content-type': 'application/json' },
    payload: { events },
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json();
};
const get = async (url: string) => h.admin('GET', url);

before(async () => {
  h = await startIngest({}, 'ingestread');
  ({ projectId, key } = await h.project('shop'));
  other = await h.project('other');
  await send(key, [
    makeEvent(projectId, { event_id: 'e1', 'event.type': 'page.view', 'event.timestamp': at(50), 'user.id': 'ann' }),
    makeEvent(projectId, { event_id: 'e2', 'event.type': 'ui.click', 'event.timestamp': at(26), 'user.id': 'ann' }),
    makeEvent(projectId, { event_id: 'e3', 'event.type': 'ui.click', 'event.timestamp': at(3), 'session.id': 's2' }),
    makeEvent(projectId, { event_id: 'e4', 'event.type': 'error', 'event.timestamp': at(2), 'user.id': 'bob' }),
  ]);
  await send(key, [
    makeEvent(projectId, { event_id: 'e5', 'event.type': 'ui.click', 'event.timestamp': at(1), 'user.id': 'ann' }),
    makeEvent(projectId, {
      event_id: 'e6',
      'event.type': 'page.view',
      'event.timestamp': at(1, 30),
      'event.name': 'Home',
    }),
  ]);
  await send(other.key, [makeEvent(other.projectId, { event_id: 'x1', 'event.timestamp': at(1) })]);
});
after(async () => h?.close());

const ids = (res: { json(): { items: { event_id: string }[] } }) => res.json().items.map((e) => e.event_id);

test("lists a project's events newest first, and only that project's", async () => {
  const res = await get(`/api/v1/projects/${projectId}/events`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(ids(res), ['e6', 'e5', 'e4', 'e3', 'e2', 'e1']);
  assert.equal(res.json().next, null);
  const first = res.json().items[0];
  assert.equal(first.type, 'page.view');
  assert.equal(first.name, 'Home');
  assert.equal(first.timestamp, at(1, 30));
  assert.equal(first.user_id, null);
  assert.equal(res.json().items[1].user_id, 'ann');
});

test('filters by type, session, user and time, together', async () => {
  const url = `/api/v1/projects/${projectId}/events`;
  assert.deepEqual(ids(await get(`${url}?type=ui.click`)), ['e5', 'e3', 'e2']);
  assert.deepEqual(ids(await get(`${url}?session=s2`)), ['e3']);
  assert.deepEqual(ids(await get(`${url}?user=ann`)), ['e5', 'e2', 'e1']);
  assert.deepEqual(ids(await get(`${url}?user=ann&type=ui.click`)), ['e5', 'e2']);
  const range = `from=${encodeURIComponent(at(27))}&to=${encodeURIComponent(at(1))}`;
  assert.deepEqual(ids(await get(`${url}?${range}`)), ['e4', 'e3', 'e2']);
  assert.deepEqual(ids(await get(`${url}?user=nobody`)), []);
});

test('pages with an opaque cursor, with no event twice or missing', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(
      `/api/v1/projects/${projectId}/events?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.statusCode, 200, res.body);
    seen.push(...ids(res));
    cursor = res.json().next;
    pages++;
  } while (cursor);
  assert.equal(pages, 2);
  assert.deepEqual(seen, ['e6', 'e5', 'e4', 'e3', 'e2', 'e1']);
});

test('bad inputs are 400 in the error shape, an unknown project 404', async () => {
  const url = `/api/v1/projects/${projectId}/events`;
  const bad = [
    `${url}?cursor=not-a-cursor`,
    `${url}?cursor=${Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')}`,
    `${url}?from=yesterday`,
    `${url}?from=${encodeURIComponent(at(1))}&to=${encodeURIComponent(at(2))}`,
    `${url}?limit=0`,
    `${url}?limit=201`,
    `${url}?colour=red`,
    `/api/v1/projects/${projectId}/event-counts?bucket=week`,
    `/api/v1/projects/${projectId}/event-counts?bucket=hour&from=2020-01-01T00:00:00Z`,
    `/api/v1/projects/${projectId}/event-counts?to=2020-01-01T00:00:00Z&from=2020-02-01T00:00:00Z`,
  ];
  for (const u of bad) {
    const res = await get(u);
    assert.equal(res.statusCode, 400, `${u}: ${res.body}`);
    assert.equal(res.json().error.code, 'VALIDATION_ERROR', u);
    assert.ok(res.json().error.message.length > 0, u);
  }
  for (const u of [
    '/api/v1/projects/nope/events',
    '/api/v1/projects/nope/event-counts',
    '/api/v1/projects/nope/events/e1',
    `/api/v1/projects/${projectId}/events/x1`,
  ]) {
    const res = await get(u);
    assert.equal(res.statusCode, 404, `${u}: ${res.body}`);
    assert.equal(res.json().error.code, 'NOT_FOUND', u);
  }
});

test('one event with its full payload', async () => {
  const res = await get(`/api/v1/projects/${projectId}/events/e4`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  const event = res.json();
  assert.equal(event.type, 'error');
  assert.equal(event.user_id, 'bob');
  assert.deepEqual(event.body.metadata, { plan: 'pro' });
  assert.equal(event.body['page.path'], '/checkout');
  assert.equal(event.body.event_id, 'e4');
});

test('counts by type and by day or hour, a retried event counted once, the same after folding', async () => {
  const url = `/api/v1/projects/${projectId}/event-counts`;
  const range = `from=${encodeURIComponent(at(3, 0))}&to=${encodeURIComponent(at(0, 0))}`;
  const check = async () => {
    const byHour = await get(`${url}?bucket=hour&${range}`);
    assert.equal(byHour.statusCode, 200, byHour.body);
    const counts = byHour.json();
    assert.equal(counts.from, at(3, 0));
    assert.equal(counts.to, at(0, 0));
    assert.deepEqual(
      counts.by_time.map((b: { count: number }) => b.count),
      [1, 1, 3],
    );
    assert.equal(counts.total, 5);
    assert.deepEqual(counts.by_type, [
      { type: 'ui.click', count: 3 },
      { type: 'error', count: 1 },
      { type: 'page.view', count: 1 },
    ]);
    const week = (await get(url)).json();
    assert.equal(week.bucket, 'day');
    assert.equal(week.total, 7);
    assert.equal(
      week.by_time.reduce((s: number, b: { count: number }) => s + b.count, 0),
      7,
    );
    const clicks = (await get(`${url}?type=ui.click`)).json();
    assert.equal(clicks.total, 4);
  };
  // e5 again (a client's retry) and a second event of e5's hour and type, each in its own request.
  const retried = await send(key, [
    makeEvent(projectId, { event_id: 'e5', 'event.type': 'ui.click', 'event.timestamp': at(1) }),
  ]);
  assert.equal(retried.accepted, 1);
  await send(key, [makeEvent(projectId, { event_id: 'e7', 'event.type': 'ui.click', 'event.timestamp': at(1, 10) })]);
  await check();
  const rowsBefore = (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.event_counts`)).rows[0].n;
  await h.sql.query('SET search_path TO ingest, public');
  await foldCounts({
    query: async (text: string, params?: readonly unknown[]) => {
      const r = await h.sql.query(text, params as unknown[]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    exec: async (text: string) => {
      await h.sql.query(text);
    },
  } as never);
  await check();
  const rowsAfter = (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.event_counts`)).rows[0].n;
  assert.ok(rowsAfter < rowsBefore, `${rowsAfter} < ${rowsBefore}`);
});

test('the list without a filter is the newest of every type merged, page after page, read without a (project, time) index (migration 011)', async () => {
  const mix = await h.project('mix');
  const types = ['page.view', 'ui.click', 'error', 'api.request', 'custom'];
  // Three events to an instant, of different types: the row id (insert order) decides between them.
  const events = Array.from({ length: 15 }, (_, i) =>
    makeEvent(mix.projectId, {
      event_id: `m${i}`,
      'event.type': types[(i * 2) % types.length],
      'event.timestamp': at(10 - Math.floor(i / 3)),
    }),
  );
  await send(mix.key, events.slice(0, 8));
  await send(mix.key, events.slice(8));
  const expected = ['m14', 'm13', 'm12', 'm11', 'm10', 'm9', 'm8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1', 'm0'];
  const url = `/api/v1/projects/${mix.projectId}/events`;
  const all = async (query: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${url}?limit=4${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.statusCode, 200, res.body);
      seen.push(...ids(res));
      cursor = res.json().next;
    } while (cursor);
    return seen;
  };
  assert.deepEqual(await all(''), expected);
  const range = `&from=${encodeURIComponent(at(8))}&to=${encodeURIComponent(at(6))}`;
  assert.deepEqual(await all(range), ['m11', 'm10', 'm9', 'm8', 'm7', 'm6']);

  // A type still counted whose events are gone (as after a project's events are deleted) costs an empty probe only.
  await h.sql.query(`DELETE FROM ingest.events WHERE project_id = $1 AND event_type = 'error'`, [mix.projectId]);
  assert.deepEqual(
    await all(''),
    expected.filter((id) => types[(Number(id.slice(1)) * 2) % types.length] !== 'error'),
  );

  // What each stored event costs an insert: three read indexes, the user.id one parsing the body once (no predicate).
  const indexes = await h.sql.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'ingest' AND tablename = 'events' ORDER BY 1`,
  );
  assert.deepEqual(
    indexes.rows.map((r) => r.indexname),
    ['events_project_session_time', 'events_project_type_time', 'events_project_user_time'],
  );
  assert.doesNotMatch(indexes.rows[2].indexdef, /WHERE/);
});
