import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import type { App } from '../../src/kit/app.ts';
import { waitFor } from '../support/wait.ts';
import { createDestination, LOCAL_RECEIVERS } from './forwarding-helpers.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import { metricValue } from './log-helpers.ts';

/**
 * Erasing a user's events (src/ingest/erasure): every stored event of the project with that `user.id` is deleted, in
 * batches, across the day partitions and the default one, with its hourly counts, its outbox entries and dead
 * letters; nobody else's; a restart goes on from where the last batch stopped; a suppressed user's new events are
 * answered as accepted and not stored, until the suppression is lifted. With PostgreSQL as the sink (the log's own
 * test is erasure-log.test.ts).
 */
let h: IngestHarness;
let shop: { projectId: string; key: string };
let other: { projectId: string; key: string };
const DAY = 86_400_000;
// Short: an erasure completes once no event accepted before it can still arrive (key cache + commit timeout).
const ENV = {
  INGEST_KEY_CACHE_SECONDS: '1',
  INGEST_COMMIT_TIMEOUT_SECONDS: '1',
  // Several batches for a few dozen events.
  INGEST_ERASURE_BATCH_EVENTS: '7',
  ...LOCAL_RECEIVERS,
};

const post = (app: App, key: string, events: unknown[], raw?: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: raw ?? JSON.stringify({ events }),
  });
const erase = (projectId: string, body: unknown) => h.admin('POST', `/api/v1/projects/${projectId}/erasures`, body);

function assertError(res: LightMyRequestResponse, status: number, message: RegExp) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(
    res.json().error.code,
    { 400: 'VALIDATION_ERROR', 404: 'NOT_FOUND', 409: 'CONFLICT' }[status as 400 | 404 | 409],
  );
  assert.match(res.json().error.message, message);
}

/** One erasure as `app` answers it. */
const erasureAt = async (app: App, projectId: string, id: string) =>
  (
    await app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/erasures/${id}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
  ).json();

async function waitCompleted(projectId: string, id: string, app: App = h.app): Promise<Record<string, any>> {
  return waitFor(
    `erasure ${id} completed`,
    async () => {
      const now = await erasureAt(app, projectId, id);
      return now.status === 'completed' ? now : undefined;
    },
    30_000,
  );
}

/** Stored events of a project by `user.id` (null: none), and in which partition. */
async function stored(projectId: string, harness: IngestHarness = h) {
  const { rows } = await harness.sql.query<{ user_id: string | null; event_id: string; part: string; type: string }>(
    `SELECT e.body->>'user.id' AS user_id, e.event_id, c.relname::text AS part, e.event_type AS type
     FROM ingest.events e JOIN pg_class c ON c.oid = e.tableoid WHERE e.project_id = $1`,
    [projectId],
  );
  return rows;
}

/** The project's counts endpoint over the last 40 days, by type. */
async function countsByType(projectId: string): Promise<Record<string, number>> {
  const from = new Date(Date.now() - 40 * DAY).toISOString();
  const to = new Date(Date.now() + DAY).toISOString();
  const res = await h.admin('GET', `/api/v1/projects/${projectId}/event-counts?from=${from}&to=${to}`);
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.json().by_type.map((t: { type: string; count: number }) => [t.type, t.count]));
}

function tally(rows: { type: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.type] = (out[r.type] ?? 0) + 1;
  return out;
}

before(async () => {
  h = await startIngest(ENV, 'ingesterasure');
  shop = await h.project('shop');
  other = await h.project('other');
});
after(async () => h?.close());

test("an erasure deletes the user's events of every day partition and of the default one, in batches, and nobody else's; the counts follow", async () => {
  const ago = (days: number, minutes = 1) => new Date(Date.now() - days * DAY - minutes * 60_000).toISOString();
  // The user on today, yesterday, two days ago (daily partitions) and 30 days ago (no partition: the default one).
  const days = [0, 1, 2, 30];
  const victim = days.flatMap((d) =>
    Array.from({ length: 6 }, (_, i) =>
      makeEvent(shop.projectId, {
        event_id: `v-${d}-${i}`,
        'user.id': 'ann@example.com',
        'event.type': i === 0 ? 'error' : 'ui.click',
        'event.timestamp': ago(d, i + 1),
      }),
    ),
  );
  // The same days: other users, an id that differs only in case, one only nested in metadata, none at all.
  const others = days.flatMap((d) => [
    makeEvent(shop.projectId, { event_id: `o-${d}-a`, 'user.id': 'bob', 'event.timestamp': ago(d) }),
    makeEvent(shop.projectId, { event_id: `o-${d}-b`, 'user.id': 'Ann@example.com', 'event.timestamp': ago(d) }),
    makeEvent(shop.projectId, {
      event_id: `o-${d}-c`,
      metadata: { 'user.id': 'ann@example.com' },
      'event.timestamp': ago(d),
    }),
  ]);
  // The same user id in another project is another project's user.
  const elsewhere = days.map((d) =>
    makeEvent(other.projectId, { event_id: `x-${d}`, 'user.id': 'ann@example.com', 'event.timestamp': ago(d) }),
  );
  assert.equal((await post(h.app, shop.key, [...victim, ...others])).statusCode, 202);
  assert.equal((await post(h.app, other.key, elsewhere)).statusCode, 202);
  const before = await stored(shop.projectId);
  const parts = new Set(before.filter((r) => r.user_id === 'ann@example.com').map((r) => r.part));
  assert.ok(parts.has('events_default'), [...parts].join());
  assert.ok([...parts].filter((p) => /^events_\d{8}$/.test(p)).length >= 3, [...parts].join());
  assert.deepEqual(await countsByType(shop.projectId), tally(before));

  // The destination's queue and dead letters hold the user's events (forwarding is off: nothing is sent).
  const hook = await createDestination(h, shop.projectId, {
    name: 'hook',
    kind: 'webhook',
    base_url: 'http://127.0.0.1:9/hook',
  });
  const queued = [
    makeEvent(shop.projectId, { event_id: 'q-ann', 'user.id': 'ann@example.com', 'event.timestamp': ago(0) }),
    makeEvent(shop.projectId, { event_id: 'q-bob', 'user.id': 'bob', 'event.timestamp': ago(0) }),
  ];
  assert.equal((await post(h.app, shop.key, queued)).statusCode, 202);
  await h.sql.query(
    `INSERT INTO ingest.dead_letters (destination_id, event_row_id, event_id, reason, attempts, first_failed_at, queued_at)
     SELECT $1, id, event_id, 'HTTP 400: bad distinct_id ' || event_id, 10, now(), now() FROM ingest.events
     WHERE project_id = $2 AND event_id IN ('v-0-1', 'v-30-2', 'o-0-a')`,
    [hook.id, shop.projectId],
  );
  // The outbox by the row ids it holds, not joined to the events (which would hide entries of erased ones).
  const rowIds = Object.fromEntries(
    (
      await h.sql.query<{ event_id: string; id: string }>(
        `SELECT event_id, id::text FROM ingest.events WHERE event_id IN ('q-ann', 'q-bob')`,
      )
    ).rows.map((r) => [r.id, r.event_id]),
  );
  const queue = async () =>
    (await h.sql.query<{ row: string }>('SELECT event_row_id::text AS row FROM ingest.outbox')).rows
      .map((r) => rowIds[r.row] ?? `row ${r.row}`)
      .sort();
  const letters = async () =>
    (await h.sql.query<{ event_id: string }>('SELECT event_id FROM ingest.dead_letters ORDER BY 1')).rows.map(
      (r) => r.event_id,
    );
  assert.deepEqual(await queue(), ['q-ann', 'q-bob']);
  assert.deepEqual(await letters(), ['o-0-a', 'v-0-1', 'v-30-2']);
  const allBefore = await stored(shop.projectId);

  const res = await erase(shop.projectId, { user_id: 'ann@example.com' });
  assert.equal(res.statusCode, 202, res.body);
  const asked = res.json();
  assert.match(asked.id, /^ers_/);
  assert.deepEqual(
    { ...asked, id: undefined, requested_at: undefined },
    {
      id: undefined,
      project_id: shop.projectId,
      user_id: 'ann@example.com',
      suppress: false,
      suppressed: false,
      status: 'pending',
      deleted: 0,
      requested_by: 'admin-token',
      requested_at: undefined,
      started_at: null,
      finished_at: null,
      suppression_lifted_at: null,
    },
  );
  const done = await waitCompleted(shop.projectId, asked.id);
  assert.equal(done.deleted, victim.length + 1);
  assert.ok(done.started_at && done.finished_at && done.finished_at >= done.started_at, JSON.stringify(done));

  const after = await stored(shop.projectId);
  assert.deepEqual(
    after.filter((r) => r.user_id === 'ann@example.com'),
    [],
  );
  // Everyone else's, exactly as they were.
  assert.deepEqual(
    after.map((r) => r.event_id).sort(),
    allBefore
      .filter((r) => r.user_id !== 'ann@example.com')
      .map((r) => r.event_id)
      .sort(),
  );
  assert.equal((await stored(other.projectId)).length, elsewhere.length);
  // The counts are those of the events left: `error` was the user's alone and is gone from them.
  const counts = await countsByType(shop.projectId);
  assert.deepEqual(counts, tally(after));
  assert.equal(counts.error, undefined);
  // The list reads no erased event either.
  const listed = await h.admin('GET', `/api/v1/projects/${shop.projectId}/events?limit=200&from=${ago(40)}`);
  assert.equal(listed.json().items.length, after.length);
  // Forwarding keeps nothing of the user: its queued entry and its dead letters went with the events.
  assert.deepEqual(await queue(), ['q-bob']);
  assert.deepEqual(await letters(), ['o-0-a']);
  assert.ok((await metricValue(h.app, 'ingest_events_erased_total'))! >= victim.length + 1);
  // The maintenance folds the counts: the erasure's rows are summed with the trigger's, and hours they empty go.
  assert.equal((await h.admin('POST', '/api/v1/retention/maintain')).statusCode, 200);
  assert.deepEqual(await countsByType(shop.projectId), tally(after));
  const folded = await h.sql.query(
    'SELECT count(*)::int AS n FROM ingest.event_counts WHERE project_id = $1 AND n <= 0',
    [shop.projectId],
  );
  assert.equal(folded.rows[0].n, 0);

  // The list: newest first, paged.
  const second = await erase(shop.projectId, { user_id: 'bob', suppress: false });
  assert.equal(second.statusCode, 202, second.body);
  const page1 = await h.admin('GET', `/api/v1/projects/${shop.projectId}/erasures?limit=1`);
  assert.equal(page1.statusCode, 200, page1.body);
  assert.deepEqual(
    page1.json().items.map((e: { id: string }) => e.id),
    [second.json().id],
  );
  const page2 = await h.admin(
    'GET',
    `/api/v1/projects/${shop.projectId}/erasures?limit=1&cursor=${encodeURIComponent(page1.json().next)}`,
  );
  assert.ok(
    page2
      .json()
      .items.map((e: { id: string }) => e.id)
      .includes(asked.id),
    page2.body,
  );
  assert.deepEqual((await h.admin('GET', `/api/v1/projects/${other.projectId}/erasures`)).json(), {
    items: [],
    next: null,
  });
  await waitCompleted(shop.projectId, second.json().id);
});

test("a suppressed user's new events are answered as accepted and not stored, on both ways a batch is read, until the suppression is lifted", async () => {
  const user = 'o"brien'; // an escape in the bytes of the fast path
  const res = await erase(shop.projectId, { user_id: user, suppress: true });
  assert.equal(res.statusCode, 202, res.body);
  const erasure = res.json();
  assert.equal(erasure.suppressed, true);
  const suppressedBefore = (await metricValue(h.app, 'ingest_events_suppressed_total')) ?? 0;

  const at = new Date().toISOString();
  const theirs = (id: string) => makeEvent(shop.projectId, { event_id: id, 'user.id': user, 'event.timestamp': at });
  const carols = (id: string) => makeEvent(shop.projectId, { event_id: id, 'user.id': 'carol', 'event.timestamp': at });
  // Compact JSON, as an SDK sends (read from its bytes), then the same pretty-printed (parsed).
  const compact = await post(h.app, shop.key, [theirs('s-1'), carols('c-1'), theirs('s-2')]);
  assert.equal(compact.statusCode, 202, compact.body);
  assert.deepEqual(compact.json(), { accepted: 3, rejected: 0, errors: [] });
  const batch = [theirs('s-3'), carols('c-2'), { ...theirs('s-4'), 'event.type': 'nope' }];
  const pretty = await post(h.app, shop.key, [], JSON.stringify({ events: batch }, null, 2));
  assert.equal(pretty.statusCode, 202, pretty.body);
  // A suppressed user's invalid event is still refused as invalid: the answer does not depend on the suppression.
  assert.equal(pretty.json().accepted, 2);
  assert.equal(pretty.json().rejected, 1);
  // The same user in another project is not suppressed there.
  const elsewhere = makeEvent(other.projectId, { event_id: 's-x', 'user.id': user, 'event.timestamp': at });
  assert.equal((await post(h.app, other.key, [elsewhere])).json().accepted, 1);

  const ids = async (projectId: string) => (await stored(projectId)).map((r) => r.event_id);
  const shopIds = await ids(shop.projectId);
  assert.ok(shopIds.includes('c-1') && shopIds.includes('c-2'));
  assert.deepEqual(
    shopIds.filter((id) => id.startsWith('s-')),
    [],
  );
  assert.ok((await ids(other.projectId)).includes('s-x'));
  assert.equal((await metricValue(h.app, 'ingest_events_suppressed_total')) ?? 0, suppressedBefore + 3);

  // Lifted: stored again. The erasure says so; lifting again changes nothing.
  const lifted = await h.admin('DELETE', `/api/v1/projects/${shop.projectId}/erasures/${erasure.id}/suppression`);
  assert.equal(lifted.statusCode, 200, lifted.body);
  assert.equal(lifted.json().suppressed, false);
  assert.ok(lifted.json().suppression_lifted_at);
  const again = await h.admin('DELETE', `/api/v1/projects/${shop.projectId}/erasures/${erasure.id}/suppression`);
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().suppression_lifted_at, lifted.json().suppression_lifted_at);
  assert.equal((await post(h.app, shop.key, [theirs('s-5')])).json().accepted, 1);
  assert.ok((await ids(shop.projectId)).includes('s-5'));
  await waitCompleted(shop.projectId, erasure.id);

  // An erasure that suppressed nobody has nothing to lift.
  const plain = (await erase(shop.projectId, { user_id: 'dave' })).json();
  assertError(
    await h.admin('DELETE', `/api/v1/projects/${shop.projectId}/erasures/${plain.id}/suppression`),
    409,
    /did not suppress its user/,
  );
  await waitCompleted(shop.projectId, plain.id);
});

test('bad input is 400 or 404 in the error shape, never 500', async () => {
  const p = shop.projectId;
  const url = `/api/v1/projects/${p}/erasures`;
  assertError(await erase(p, {}), 400, /user_id/);
  assertError(await erase(p, { user_id: '' }), 400, /user_id/);
  assertError(await erase(p, { user_id: 'x'.repeat(1025) }), 400, /user_id/);
  assertError(await erase(p, { user_id: 'a\u0000b' }), 400, /^user_id: must not contain a NUL character/);
  assertError(await erase(p, { user_id: 'ann', suppress: 'yes' }), 400, /suppress/);
  assertError(await erase(p, { user_id: 'ann', userId: 'ann' }), 400, /userId|additional/);
  assertError(await erase(p, ['ann']), 400, /body/);
  const surrogate = await h.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: '{"user_id":"ann\\ud800"}',
  });
  assertError(surrogate, 400, /^user_id: must not contain an unpaired surrogate/);
  const malformed = await h.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: '{"user_id":',
  });
  assert.equal(malformed.statusCode, 400, malformed.body);
  assertError(await erase('nope', { user_id: 'ann' }), 404, /no project nope/);
  assertError(await h.admin('GET', '/api/v1/projects/nope/erasures'), 404, /no project nope/);
  assertError(await h.admin('GET', `${url}/ers_nope`), 404, /no erasure ers_nope/);
  assertError(await h.admin('DELETE', `${url}/ers_nope/suppression`), 404, /no erasure ers_nope/);
  assertError(await h.admin('GET', `${url}?cursor=nonsense`), 400, /cursor/);
  assertError(await h.admin('GET', `${url}?limit=0`), 400, /limit/);
  assertError(await h.admin('GET', `${url}?limit=10&colour=red`), 400, /colour|additional/);
  assertError(await h.admin('GET', `/api/v1/projects/x%00/erasures`), 400, /NUL/);
  assertError(await h.admin('GET', `/api/v1/projects/${'p'.repeat(65)}/erasures`), 400, /projectId/);
  // Nothing of it was recorded (looked up by the user's digest: a completed erasure keeps no id, migration 014).
  assert.deepEqual((await h.admin('GET', `${url}?user_id=ann`)).json().items, []);
  assertError(await h.admin('GET', `${url}?user_id=`), 400, /user_id/);
});

test('only admins: no token, a project key, a token without ingest:admin are refused; a person is recorded by their subject', async () => {
  // The same database, an instance that also takes identity's access tokens (a verifier as `platform start` links).
  const app = await buildIngestApp({
    ...loadIngestConfig({ DATABASE_URL: h.database.url, DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent', ...ENV }),
    links: {
      verifier: async (token) =>
        token === 'person-token'
          ? { scopes: ['ingest:admin'], subject: 'ann-sub', clientId: 'console' }
          : token === 'reader-token'
            ? { scopes: ['ingest:read'], subject: 'bob-sub', clientId: 'console' }
            : undefined,
      holdsScope: async () => true,
      corsOrigins: [],
    },
  });
  try {
    const url = `/api/v1/projects/${shop.projectId}/erasures`;
    const call = (method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>) =>
      app.inject({
        method,
        url: path,
        headers: { ...headers, 'content-type': 'application/json' },
        ...(method === 'POST' ? { payload: { user_id: 'erin', suppress: true } } : {}),
      });
    for (const [method, path] of [
      ['POST', url],
      ['GET', url],
      ['GET', `${url}/ers_x`],
      ['DELETE', `${url}/ers_x/suppression`],
    ] as const) {
      assert.equal((await call(method, path, {})).statusCode, 401, `${method} ${path} without a token`);
      assert.equal(
        (await call(method, path, { authorization: `Bearer ${shop.key}` })).statusCode,
        401,
        `${method} ${path} with a project key`,
      );
      assert.equal(
        (await call(method, path, { 'x-svc-api-key': shop.key })).statusCode,
        401,
        `${method} ${path} with a project key as for events`,
      );
      const reader = await call(method, path, { authorization: 'Bearer reader-token' });
      assert.equal(reader.statusCode, 403, `${method} ${path} without the scope: ${reader.body}`);
    }
    const { rows } = await h.sql.query("SELECT count(*)::int AS n FROM ingest.erasures WHERE user_id = 'erin'");
    assert.equal(rows[0].n, 0, 'nothing refused was recorded');
    const made = await call('POST', url, { authorization: 'Bearer person-token' });
    assert.equal(made.statusCode, 202, made.body);
    assert.equal(made.json().requested_by, 'person:ann-sub');
    const lifted = await call('DELETE', `${url}/${made.json().id}/suppression`, {
      authorization: 'Bearer person-token',
    });
    assert.equal(lifted.statusCode, 200, lifted.body);
    const who = await h.sql.query('SELECT suppression_lifted_by FROM ingest.erasures WHERE id = $1', [made.json().id]);
    assert.equal(who.rows[0].suppression_lifted_by, 'person:ann-sub');
    await waitCompleted(shop.projectId, made.json().id);
  } finally {
    await app.close();
  }
});

test('an erasure stopped mid-way by a shutdown goes on at the next start, and one whose worker died is taken once its lease ends', async () => {
  // A database of its own: no other instance's worker may take these erasures.
  const r = await startIngest(ENV, 'ingesterasureresume');
  const apps: App[] = [];
  try {
    const { projectId, key } = await r.project('resume');
    const user = 'frank';
    const at = (i: number) => new Date(Date.now() - (i % 3) * DAY - i * 1000).toISOString();
    const theirs = Array.from({ length: 300 }, (_, i) =>
      makeEvent(projectId, { event_id: `f-${i}`, 'user.id': user, 'event.timestamp': at(i) }),
    );
    const others = ['bob', 'bob', 'carol'].map((u, i) =>
      makeEvent(projectId, { event_id: `o-${i}`, 'user.id': u, 'event.timestamp': at(i) }),
    );
    assert.equal((await post(r.app, key, [...theirs, ...others])).statusCode, 202);
    // The harness's instance stops; one erasing an event per batch takes over, and is stopped once it deleted some.
    await r.app.close();
    const config = loadIngestConfig({
      DATABASE_URL: r.database.url,
      DATA_DIR: '/tmp/unused',
      LOG_LEVEL: 'silent',
      INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
      ...ENV,
      INGEST_ERASURE_BATCH_EVENTS: '1',
    });
    const first = await buildIngestApp(config);
    apps.push(first);
    const res = await first.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/erasures`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { user_id: user },
    });
    assert.equal(res.statusCode, 202, res.body);
    const id: string = res.json().id;
    const progress = async () =>
      (await r.sql.query('SELECT status, deleted::int, leased_until FROM ingest.erasures WHERE id = $1', [id])).rows[0];
    await waitFor('a first batch', async () => (await progress()).deleted > 0, 20_000);
    await first.close();
    const stopped = await progress();
    assert.equal(stopped.status, 'running');
    assert.ok(stopped.deleted > 0 && stopped.deleted < theirs.length, `deleted ${stopped.deleted}`);
    // Given back at the shutdown: the next start takes it at once rather than a lease later.
    assert.ok(new Date(stopped.leased_until).getTime() <= Date.now(), String(stopped.leased_until));
    assert.equal(
      (await stored(projectId, r)).filter((e) => e.user_id === user).length,
      theirs.length - stopped.deleted,
    );

    // A worker that died holding another erasure (its lease ran out), and one alive holding a third (a lease to come).
    await r.sql.query(
      `INSERT INTO ingest.erasures (id, project_id, user_id, suppress, status, deleted, requested_by, requested_at,
         started_at, leased_until, lease_token)
       VALUES ('ers_died', $1, 'bob', false, 'running', 5, 'admin-token', now() - interval '1 hour',
                 now() - interval '1 hour', now() - interval '1 second', 'dead'),
              ('ers_held', $1, 'carol', false, 'running', 0, 'admin-token', now() - interval '1 hour',
                 now() - interval '1 hour', now() + interval '1 hour', 'alive')`,
      [projectId],
    );
    // The next start, as a restart of the service.
    const next = await buildIngestApp({ ...config, erasureBatchEvents: 7 });
    apps.push(next);
    const resumed = await waitCompleted(projectId, id, next);
    assert.equal(resumed.deleted, theirs.length, 'every event counted once, across the restart');
    assert.equal((await stored(projectId, r)).filter((e) => e.user_id === user).length, 0);
    const taken = await waitCompleted(projectId, 'ers_died', next);
    assert.equal(taken.deleted, 5 + 2, 'what the dead worker had deleted, and the two left');
    // The held one is left to its holder.
    await new Promise((done) => setTimeout(done, 2_500));
    const held = await erasureAt(next, projectId, 'ers_held');
    assert.equal(held.status, 'running');
    assert.equal(held.deleted, 0);
    assert.ok((await stored(projectId, r)).some((e) => e.user_id === 'carol'));
  } finally {
    for (const app of apps) await app.close();
    await r.close();
  }
});
