import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';

/**
 * The read API's list and counts filtered by several types, or by all but some (`?type=a&type=b`,
 * `?exclude_type=c`): read.test.ts covers one type and no type.
 */
let h: IngestHarness;
let projectId: string;
const HOUR = 3_600_000;
const base = Math.floor(Date.now() / HOUR) * HOUR;
const at = (hoursAgo: number, minute = 5) => new Date(base - hoursAgo * HOUR + minute * 60_000).toISOString();
const TYPES = ['page.view', 'ui.click', 'error', 'custom', 'api.request'];
// 30 events over 10 hours, three to an instant of different types (row ids, the insert order, decide among them);
// `custom` is every other one, the noisy type a person hides.
const EVENTS = Array.from({ length: 30 }, (_, i) => ({
  id: `t${i}`,
  type: i % 2 === 0 ? 'custom' : TYPES[(i * 3) % TYPES.length]!,
  hoursAgo: 10 - Math.floor(i / 3),
  session: i % 4 === 0 ? 's-even' : 's-odd',
}));
const NEWEST_FIRST = [...EVENTS].reverse();
const idsOf = (keep: (e: (typeof EVENTS)[number]) => boolean) => NEWEST_FIRST.filter(keep).map((e) => e.id);

const get = (url: string) => h.admin('GET', url);
const list = () => `/api/v1/projects/${projectId}/events`;
const counts = () => `/api/v1/projects/${projectId}/event-counts`;
const ids = (res: { json(): { items: { event_id: string }[] } }) => res.json().items.map((e) => e.event_id);

/** Every page of the list for `query`, `limit` a page: the ids in order, and how many pages. */
async function allPages(query: string, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(`${list()}?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    seen.push(...ids(res));
    cursor = res.json().next;
    pages++;
  } while (cursor);
  return { seen, pages };
}

before(async () => {
  h = await startIngest({}, 'ingestreadtypes');
  const made = await h.project('kinds');
  projectId = made.projectId;
  const events = EVENTS.map((e) =>
    makeEvent(projectId, {
      event_id: e.id,
      'event.type': e.type,
      'event.timestamp': at(e.hoursAgo),
      'session.id': e.session,
    }),
  );
  // Two requests, two statements: the counts get rows of each.
  for (const part of [events.slice(0, 17), events.slice(17)]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': made.key, 'content-type': 'application/json' },
      payload: { events: part },
    });
    assert.equal(res.statusCode, 202, res.body);
  }
});
after(async () => h?.close());

test('one type works as it did: a single `type` is that type only', async () => {
  const res = await get(`${list()}?type=error`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(
    ids(res),
    idsOf((e) => e.type === 'error'),
  );
  assert.equal((await get(`${counts()}?type=error`)).json().total, idsOf((e) => e.type === 'error').length);
});

test('several types: only those, newest first, page after page across the merge', async () => {
  const wanted = idsOf((e) => e.type === 'page.view' || e.type === 'ui.click');
  assert.ok(wanted.length >= 6, `${wanted.length} events of the two types`);
  const res = await get(`${list()}?type=page.view&type=ui.click`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(ids(res), wanted);
  // A type named twice is read once: no event twice.
  assert.deepEqual(ids(await get(`${list()}?type=page.view&type=ui.click&type=page.view`)), wanted);
  for (const limit of [1, 2, 4]) {
    const { seen, pages } = await allPages('&type=page.view&type=ui.click', limit);
    assert.deepEqual(seen, wanted, `limit ${limit}`);
    assert.equal(pages, Math.ceil(wanted.length / limit), `limit ${limit}`);
  }
  // Three types, one never sent: its probe is empty.
  assert.deepEqual(
    ids(await get(`${list()}?type=error&type=custom&type=journey.step`)),
    idsOf((e) => e.type === 'error' || e.type === 'custom'),
  );
});

test('all but some types: the excluded are gone, paging stays whole and in order', async () => {
  const res = await get(`${list()}?exclude_type=custom`);
  assert.equal(res.statusCode, 200, res.body);
  const wanted = idsOf((e) => e.type !== 'custom');
  assert.deepEqual(ids(res), wanted);
  assert.deepEqual((await allPages('&exclude_type=custom', 4)).seen, wanted);
  assert.deepEqual(
    (await allPages('&exclude_type=custom&exclude_type=error', 3)).seen,
    idsOf((e) => e.type !== 'custom' && e.type !== 'error'),
  );
  // Every type left out: nothing.
  assert.deepEqual(ids(await get(`${list()}?${TYPES.map((t) => `exclude_type=${t}`).join('&')}`)), []);
  // With a time range and a session, whose index then leads.
  const range = `from=${encodeURIComponent(at(7))}&to=${encodeURIComponent(at(3))}`;
  assert.deepEqual(
    ids(await get(`${list()}?exclude_type=custom&${range}`)),
    idsOf((e) => e.type !== 'custom' && e.hoursAgo <= 7 && e.hoursAgo > 3),
  );
  assert.deepEqual(
    ids(await get(`${list()}?exclude_type=custom&session=s-odd`)),
    idsOf((e) => e.type !== 'custom' && e.session === 's-odd'),
  );
  assert.deepEqual(
    ids(await get(`${list()}?type=page.view&type=ui.click&session=s-odd`)),
    idsOf((e) => (e.type === 'page.view' || e.type === 'ui.click') && e.session === 's-odd'),
  );
});

test('counts of several types, and of all but some', async () => {
  const byType = (keep: (type: string) => boolean) => {
    const n = new Map<string, number>();
    for (const e of EVENTS) if (keep(e.type)) n.set(e.type, (n.get(e.type) ?? 0) + 1);
    return [...n]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
  };
  const range = `from=${encodeURIComponent(at(11, 0))}&to=${encodeURIComponent(at(0, 0))}&bucket=hour`;
  const included = await get(`${counts()}?type=page.view&type=ui.click&${range}`);
  assert.equal(included.statusCode, 200, included.body);
  const two = (t: string) => t === 'page.view' || t === 'ui.click';
  assert.deepEqual(included.json().by_type, byType(two));
  assert.equal(included.json().total, EVENTS.filter((e) => two(e.type)).length);
  const perHour = (keep: (type: string) => boolean) =>
    Array.from({ length: 11 }, (_, i) => EVENTS.filter((e) => e.hoursAgo === 11 - i && keep(e.type)).length);
  assert.deepEqual(
    included.json().by_time.map((b: { count: number }) => b.count),
    perHour(two),
  );

  const excluded = await get(`${counts()}?exclude_type=custom&${range}`);
  assert.equal(excluded.statusCode, 200, excluded.body);
  const notCustom = (t: string) => t !== 'custom';
  assert.deepEqual(excluded.json().by_type, byType(notCustom));
  assert.equal(excluded.json().total, EVENTS.filter((e) => notCustom(e.type)).length);
  assert.deepEqual(
    excluded.json().by_time.map((b: { count: number }) => b.count),
    perHour(notCustom),
  );
});

test('bad type filters are 400 in the error shape, on the list and the counts', async () => {
  const long = 'x'.repeat(257);
  const many = Array.from({ length: 21 }, (_, i) => `type=t${i}`).join('&');
  const manyOut = Array.from({ length: 21 }, (_, i) => `exclude_type=t${i}`).join('&');
  const cases: [string, RegExp][] = [
    ['type=page.view&exclude_type=custom', /type and exclude_type/],
    ['type=page.view&type=ui.click&exclude_type=custom&exclude_type=error', /type and exclude_type/],
    [many, /type.*20/],
    [manyOut, /exclude_type.*20/],
    ['type=', /type/],
    ['type=page.view&type=', /type/],
    ['exclude_type=', /exclude_type/],
    [`type=${long}`, /type.*256/],
    [`exclude_type=${long}`, /exclude_type.*256/],
  ];
  for (const url of [list(), counts()])
    for (const [query, message] of cases) {
      const res = await get(`${url}?${query}`);
      const where = `${url}?${query.slice(0, 80)}`;
      assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
      assert.equal(res.json().error.code, 'VALIDATION_ERROR', where);
      assert.match(res.json().error.message, message, where);
    }
  // Twenty is allowed.
  const twenty = Array.from({ length: 20 }, (_, i) => `exclude_type=t${i}`).join('&');
  assert.equal((await get(`${list()}?${twenty}`)).statusCode, 200);
});

test('/openapi.json describes the repeated type and exclude_type of both routes', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const path of ['/api/v1/projects/{projectId}/events', '/api/v1/projects/{projectId}/event-counts']) {
    const parameters = doc.paths[path].get.parameters as {
      name: string;
      in: string;
      schema: { type: string; maxItems: number; items: { minLength: number; maxLength: number } };
      description?: string;
    }[];
    for (const name of ['type', 'exclude_type']) {
      const p = parameters.find((x) => x.name === name && x.in === 'query');
      assert.ok(p, `${path} documents ${name}`);
      assert.equal(p.schema.type, 'array', `${path} ${name}`);
      assert.equal(p.schema.maxItems, 20);
      assert.deepEqual([p.schema.items.minLength, p.schema.items.maxLength], [1, 256]);
      assert.match(p.description ?? '', /at most 20/);
    }
  }
});
