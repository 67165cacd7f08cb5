import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * A project's internal and test users (admin/internal-users-routes.ts) and the read API's `internal=exclude`
 * (read/routes.ts): the list and the counts leave out events whose `user.id` is one of them, exactly or by a prefix
 * (`test-*`), together with the type filters; events without a `user.id` stay. The counts are checked against a
 * count of the events themselves.
 */
let h: IngestHarness;
let projectId: string;
let other: string;
const HOUR = 3_600_000;
const base = Math.floor(Date.now() / HOUR) * HOUR;
const at = (hoursAgo: number, minute = 5) => new Date(base - hoursAgo * HOUR + minute * 60_000).toISOString();
// Who sends what: the team (an exact id and a prefix), customers whose ids only look close to the prefix, nobody.
const USERS = ['ann@example.com', 'test-1', 'test-', 'test.x', 'testa', 'Test-2', 'bob', 'carol', undefined];
const TYPES = ['page.view', 'ui.click', 'error', 'custom'];
const EVENTS = Array.from({ length: 72 }, (_, i) => ({
  id: `i${String(i).padStart(2, '0')}`,
  type: TYPES[i % TYPES.length]!,
  user: USERS[i % USERS.length],
  // Over 36 hours, two days: hour and day buckets both hold some of each user.
  hoursAgo: 36 - Math.floor(i / 2),
}));
const ENTRIES = ['ann@example.com', 'test-*'];
const internal = (user: string | undefined) => user === 'ann@example.com' || (user?.startsWith('test-') ?? false);
const NEWEST_FIRST = [...EVENTS].reverse();
const idsOf = (keep: (e: (typeof EVENTS)[number]) => boolean) => NEWEST_FIRST.filter(keep).map((e) => e.id);

const get = (url: string) => h.admin('GET', url);
const put = (id: string, users: unknown) => h.admin('PUT', `/api/v1/projects/${id}/internal-users`, { users });
const list = (query = '') => get(`/api/v1/projects/${projectId}/events?limit=200${query}`);
const counts = (query = '') => get(`/api/v1/projects/${projectId}/event-counts?${query}`);
const ids = (res: { statusCode: number; body: string; json(): { items: { event_id: string }[] } }) => {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items.map((e) => e.event_id);
};
function assertError(res: { statusCode: number; body: string; json(): any }, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().error.code, status === 400 ? 'VALIDATION_ERROR' : 'NOT_FOUND');
  assert.match(res.json().error.message, message);
}

before(async () => {
  h = await startIngest({}, 'ingestinternal');
  const made = await h.project('team');
  projectId = made.projectId;
  const events = EVENTS.map((e) =>
    makeEvent(projectId, {
      event_id: e.id,
      'event.type': e.type,
      'event.timestamp': at(e.hoursAgo),
      ...(e.user === undefined ? {} : { 'user.id': e.user }),
    }),
  );
  for (const part of [events.slice(0, 40), events.slice(40)]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': made.key, 'content-type': 'application/json' },
      payload: { events: part },
    });
    assert.equal(res.statusCode, 202, res.body);
  }
  other = (await h.project('elsewhere')).projectId;
});
after(async () => h?.close());

test('the list is stored and answered as given, without repeats; an empty one leaves nobody out', async () => {
  assert.deepEqual((await get(`/api/v1/projects/${projectId}/internal-users`)).json(), {
    project_id: projectId,
    users: [],
  });
  const res = await put(projectId, [...ENTRIES, 'test-*']);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { project_id: projectId, users: ENTRIES });
  assert.deepEqual((await get(`/api/v1/projects/${projectId}/internal-users`)).json().users, ENTRIES);
  // Another project's list is its own.
  assert.deepEqual((await get(`/api/v1/projects/${other}/internal-users`)).json().users, []);
});

test('the list leaves out exact ids and prefixes, keeps events without a user.id, and pages whole', async () => {
  await put(projectId, ENTRIES);
  const kept = idsOf((e) => !internal(e.user));
  assert.ok(kept.length < EVENTS.length && kept.length > 30, `${kept.length} kept`);
  assert.deepEqual(ids(await list('&internal=exclude')), kept);
  assert.deepEqual(
    ids(await list()),
    idsOf(() => true),
    'include is the default',
  );
  assert.deepEqual(
    ids(await list('&internal=include')),
    idsOf(() => true),
  );
  // Without a user.id: kept. Ids next to the prefix but not starting with it (`test.x`, `testa`, `Test-2`): kept.
  const users = new Set(
    (await list('&internal=exclude')).json().items.map((e: { user_id: string | null }) => e.user_id),
  );
  assert.deepEqual([...users].sort(), [null, 'Test-2', 'bob', 'carol', 'test.x', 'testa'].sort());
  // Page after page, with the merge's window (one type per page of several).
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(
      `/api/v1/projects/${projectId}/events?limit=5&internal=exclude${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    seen.push(...ids(res));
    cursor = res.json().next;
  } while (cursor);
  assert.deepEqual(seen, kept);
});

test('the list with the type filters, a session or a user', async () => {
  await put(projectId, ENTRIES);
  assert.deepEqual(
    ids(await list('&internal=exclude&type=error')),
    idsOf((e) => !internal(e.user) && e.type === 'error'),
  );
  assert.deepEqual(
    ids(await list('&internal=exclude&type=error&type=custom')),
    idsOf((e) => !internal(e.user) && (e.type === 'error' || e.type === 'custom')),
  );
  assert.deepEqual(
    ids(await list('&internal=exclude&exclude_type=page.view')),
    idsOf((e) => !internal(e.user) && e.type !== 'page.view'),
  );
  // A user of the list asked for by name, with internal=exclude: nothing (the two filters hold together).
  assert.deepEqual(ids(await list('&internal=exclude&user=test-1')), []);
  assert.deepEqual(ids(await list('&internal=exclude&user=ann%40example.com')), []);
  assert.deepEqual(
    ids(await list('&internal=exclude&user=bob')),
    idsOf((e) => e.user === 'bob'),
  );
  assert.deepEqual(
    ids(await list('&user=test-1')),
    idsOf((e) => e.user === 'test-1'),
  );
});

/** The counts the events themselves give, by type and by bucket, for the users and types kept. */
async function direct(bucket: 'hour' | 'day', from: string, to: string, types: string[] | null) {
  const { rows } = await h.sql.query<{ type: string; start: Date; n: string }>(
    `SELECT event_type AS type, date_trunc($4, event_ts, 'UTC') AS start, count(*)::text AS n FROM ingest.events
     WHERE project_id = $1 AND event_ts >= $2 AND event_ts < $3 AND ($5::text[] IS NULL OR event_type = ANY($5))
       AND NOT coalesce((body ->> 'user.id') = 'ann@example.com' OR starts_with(body ->> 'user.id', 'test-'), false)
     GROUP BY 1, 2`,
    [projectId, from, to, bucket, types],
  );
  const byType = new Map<string, number>();
  const byTime = new Map<string, number>();
  for (const r of rows) {
    byType.set(r.type, (byType.get(r.type) ?? 0) + Number(r.n));
    byTime.set(r.start.toISOString(), (byTime.get(r.start.toISOString()) ?? 0) + Number(r.n));
  }
  return { byType, byTime };
}

test('the counts equal a count of the events kept, by type and by hour or day, with the type filters', async () => {
  await put(projectId, ENTRIES);
  const cases: { query: string; types: string[] | null }[] = [
    { query: '', types: null },
    { query: '&type=error', types: ['error'] },
    { query: '&type=page.view&type=ui.click', types: ['page.view', 'ui.click'] },
    { query: '&exclude_type=custom', types: ['page.view', 'ui.click', 'error'] },
  ];
  for (const bucket of ['hour', 'day'] as const) {
    for (const { query, types } of cases) {
      const range = `from=${encodeURIComponent(at(40, 0))}&to=${encodeURIComponent(at(-1, 0))}&bucket=${bucket}`;
      const res = await counts(`${range}&internal=exclude${query}`);
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json();
      const want = await direct(bucket, answer.from, answer.to, types);
      const what = `${bucket} ${query}`;
      assert.deepEqual(
        answer.by_type,
        [...want.byType]
          .map(([type, count]) => ({ type, count }))
          .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1)),
        what,
      );
      for (const b of answer.by_time) assert.equal(b.count, want.byTime.get(b.start) ?? 0, `${what} ${b.start}`);
      assert.equal(
        answer.total,
        [...want.byType.values()].reduce((s, n) => s + n, 0),
        what,
      );
      const all = (await counts(`${range}${query}`)).json();
      assert.ok(answer.total < all.total, `${what}: ${answer.total} of ${all.total}`);
      assert.equal(
        answer.total,
        EVENTS.filter((e) => !internal(e.user) && (types === null || types.includes(e.type))).length,
        what,
      );
    }
  }
});

test('a change counts on the next read; a prefix covering an exact id counts its events once', async () => {
  await put(projectId, ['test-1', 'test-*', 'bob']);
  const res = await counts(`from=${encodeURIComponent(at(40, 0))}&internal=exclude`);
  const kept = EVENTS.filter((e) => !(e.user?.startsWith('test-') || e.user === 'bob'));
  assert.equal(res.json().total, kept.length);
  assert.deepEqual(
    ids(await list('&internal=exclude')),
    idsOf((e) => !(e.user?.startsWith('test-') || e.user === 'bob')),
  );
  await put(projectId, []);
  assert.equal((await counts(`from=${encodeURIComponent(at(40, 0))}&internal=exclude`)).json().total, EVENTS.length);
  assert.deepEqual(
    ids(await list('&internal=exclude')),
    idsOf(() => true),
  );
});

test('bad entries are 400 naming them, and leave the list as it was; an unknown project is 404', async () => {
  await put(projectId, ENTRIES);
  const cases: [unknown, RegExp][] = [
    [[''], /^users\[0\]: must be 1 to 256 characters$/],
    [['ok', 'x'.repeat(257)], /^users\[1\]: must be 1 to 256 characters$/],
    [['*'], /^users\[0\]: a prefix needs a character before the \*/],
    [['test*user'], /^users\[0\]: \* may only end an entry, as a prefix \(test-\*\)$/],
    [['**'], /^users\[0\]: \* may only end an entry/],
    [[' ann'], /^users\[0\]: must not start or end with a space$/],
    [Array.from({ length: 101 }, (_, i) => `u${i}`), /users must NOT have more than 100 items/],
    [['nul\u0000'], /NUL/],
    ['ann', /users/],
    [[42], /users/],
  ];
  for (const [users, message] of cases) assertError(await put(projectId, users), 400, message);
  assertError(await h.admin('PUT', `/api/v1/projects/${projectId}/internal-users`, {}), 400, /users/);
  assertError(
    await h.admin('PUT', `/api/v1/projects/${projectId}/internal-users`, { users: [], extra: 1 }),
    400,
    /additional/i,
  );
  assert.deepEqual((await get(`/api/v1/projects/${projectId}/internal-users`)).json().users, ENTRIES);
  // 100 entries of 256 characters are fine.
  const most = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')}${'x'.repeat(252)}*`);
  assert.equal((await put(other, most)).statusCode, 200);
  assertError(await put('nope', []), 404, /no project nope/);
  assertError(await get('/api/v1/projects/nope/internal-users'), 404, /no project nope/);
  assertError(await list('&internal=maybe'), 400, /internal/);
  assertError(await counts('internal=exclude&internal=include'), 400, /internal/);
  assertError(await get('/api/v1/projects/nope/events?internal=exclude'), 404, /no project nope/);
  assertError(await get('/api/v1/projects/nope/event-counts?internal=exclude'), 404, /no project nope/);
});

test('only an admin reads or replaces the list', async () => {
  for (const authorization of [undefined, 'Bearer not-the-admin-token', `Bearer ${ADMIN_TOKEN}x`]) {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await h.app.inject({
        method,
        url: `/api/v1/projects/${projectId}/internal-users`,
        headers: authorization ? { authorization } : {},
        ...(method === 'PUT' ? { payload: { users: [] } } : {}),
      });
      assert.equal(res.statusCode, 401, `${method} ${authorization}: ${res.body}`);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
  }
  assert.deepEqual((await get(`/api/v1/projects/${projectId}/internal-users`)).json().users.length > 0, true);
});
