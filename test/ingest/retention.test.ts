import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { ingestCommand } from '../../src/ingest/cli.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { maintainPartitions } from '../../src/ingest/retention/maintain.ts';
import { addDays, dayOf, dayPartitionName } from '../../src/ingest/retention/partitions.ts';
import { openDatabase } from '../../src/kit/db.ts';
import type { App } from '../../src/kit/app.ts';
import { startWebhookReceiver } from '../support/vendors/webhook.ts';
import { FAST_FORWARDING, LOCAL_RECEIVERS, createDestination, deadLetters, waitFor } from './forwarding-helpers.ts';
import { ADMIN_TOKEN, makeEvent, startIngest, type IngestHarness } from './helpers.ts';

// Default retention 10 days; partitions from 7 days back to 3 ahead (the defaults of the last two).
let h: IngestHarness;
const today = dayOf(new Date());
/** Noon of the day `offset` days from today (UTC), as event.timestamp. */
const at = (offset: number) => new Date(addDays(today, offset).getTime() + 12 * 3_600_000).toISOString();
const partitionOf = (offset: number) => dayPartitionName(addDays(today, offset));

before(async () => {
  h = await startIngest({ INGEST_RETENTION_DAYS: '10', PLATFORM_SECRET_KEY: 'a'.repeat(64) }, 'retention');
});
after(async () => h.close());

async function send(key: string, events: Record<string, unknown>[], on: IngestHarness = h) {
  const res = await on.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ events }),
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json() as { accepted: number; rejected: number };
}

/** Where each stored event is: its partition's name by event_id. */
async function placement(on: IngestHarness, projectId: string): Promise<Record<string, string>> {
  const { rows } = await on.sql.query(
    'SELECT event_id, tableoid::regclass::text AS part FROM ingest.events WHERE project_id = $1',
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [r.event_id, r.part.replace(/^ingest\./, '')]));
}

async function partitionNames(on: IngestHarness): Promise<string[]> {
  const res = await on.admin('GET', '/api/v1/retention');
  assert.equal(res.statusCode, 200, res.body);
  return res.json().partitions.map((p: { name: string }) => p.name);
}

test('the service makes the daily partitions from 7 days back to 3 ahead at start, and the default one', async () => {
  const res = await h.admin('GET', '/api/v1/retention');
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.default_days, 10);
  const expected = Array.from({ length: 11 }, (_, i) => partitionOf(i - 7));
  assert.deepEqual(
    body.partitions.map((p: { name: string }) => p.name),
    [...expected, 'events_default'],
  );
  const first = body.partitions[0];
  assert.equal(first.from, addDays(today, -7).toISOString());
  assert.equal(first.to, addDays(today, -6).toISOString());
  assert.equal(first.default, false);
  assert.equal(body.partitions.at(-1).default, true);
});

test("events go to their day's partition (or the default one), and a retried event is recognised in each", async () => {
  const { projectId, key } = await h.project();
  const events = [
    makeEvent(projectId, { event_id: 'today', 'event.timestamp': at(0) }),
    makeEvent(projectId, { event_id: 'late', 'event.timestamp': at(-3) }),
    makeEvent(projectId, { event_id: 'ahead', 'event.timestamp': at(2) }),
    makeEvent(projectId, { event_id: 'old', 'event.timestamp': at(-40) }),
    makeEvent(projectId, { event_id: 'far', 'event.timestamp': '2999-01-01T00:00:00Z' }),
  ];
  assert.deepEqual(await send(key, events), { accepted: 5, rejected: 0, errors: [] });
  assert.deepEqual(await placement(h, projectId), {
    today: partitionOf(0),
    late: partitionOf(-3),
    ahead: partitionOf(2),
    old: 'events_default',
    far: 'events_default',
  });
  // The whole batch again (an SDK's retry): accepted, nothing stored twice, in any partition.
  assert.deepEqual(await send(key, events), { accepted: 5, rejected: 0, errors: [] });
  const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE project_id = $1', [projectId]);
  assert.equal(rows[0].n, 5);
  // The same event_id with another day is another event: the window is (project, event_id) within a day.
  await send(key, [makeEvent(projectId, { event_id: 'today', 'event.timestamp': at(-1) })]);
  assert.equal((await placement(h, projectId)).today, partitionOf(0));
  const again = await h.sql.query('SELECT count(*)::int AS n FROM ingest.events WHERE event_id = $1', ['today']);
  assert.equal(again.rows[0].n, 2);
});

test("a stray event of a future day moves into that day's partition when it is made, and stays recognised", async () => {
  const { projectId, key } = await h.project();
  const stray = makeEvent(projectId, { event_id: 'stray', 'event.timestamp': at(5) });
  await send(key, [stray]);
  assert.equal((await placement(h, projectId)).stray, 'events_default');
  const before = await h.sql.query('SELECT id FROM ingest.events WHERE event_id = $1', ['stray']);

  // Two days on, day +5 is within the 3 days ahead: the maintenance makes it and moves the event there, id and all.
  const db = await openDatabase({ url: h.database.url, dataDir: '', schema: 'ingest', poolSize: 2 });
  try {
    const report = await maintainPartitions(db, {
      now: addDays(new Date(), 2),
      defaultDays: 10,
      daysAhead: 3,
      daysBehind: 7,
      lockTimeoutMs: 5_000,
    });
    assert.ok(report.created.includes(partitionOf(5)), JSON.stringify(report));
  } finally {
    await db.close();
  }
  assert.equal((await placement(h, projectId)).stray, partitionOf(5));
  const moved = await h.sql.query('SELECT id FROM ingest.events WHERE event_id = $1', ['stray']);
  assert.deepEqual(moved.rows, before.rows);
  await send(key, [stray]);
  assert.equal(
    (await h.sql.query(`SELECT count(*)::int AS n FROM ingest.events WHERE event_id = 'stray'`)).rows[0].n,
    1,
  );
});

test('retention drops whole partitions once every project in them has expired, and deletes expired strays of the default partition', async () => {
  // A database of its own: the days these projects use hold nothing else.
  const h = await startIngest({ INGEST_RETENTION_DAYS: '10' }, 'retention-drop');
  try {
    await retentionDrops(h);
  } finally {
    await h.close();
  }
});

async function retentionDrops(h: IngestHarness): Promise<void> {
  const short = await h.project();
  const long = await h.project();
  const put = await h.admin('PUT', `/api/v1/projects/${short.projectId}/retention`, { days: 3 });
  assert.equal(put.statusCode, 200, put.body);
  assert.deepEqual(put.json(), { project_id: short.projectId, days: 3, default_days: 10, effective_days: 3 });
  const got = await h.admin('GET', `/api/v1/projects/${long.projectId}/retention`);
  assert.deepEqual(got.json(), { project_id: long.projectId, days: null, default_days: 10, effective_days: 10 });

  await send(
    short.key,
    [
      makeEvent(short.projectId, { event_id: 's-6', 'event.timestamp': at(-6) }),
      makeEvent(short.projectId, { event_id: 's-5', 'event.timestamp': at(-5) }),
      makeEvent(short.projectId, { event_id: 's-30', 'event.timestamp': at(-30) }),
      makeEvent(short.projectId, { event_id: 's-1', 'event.timestamp': at(-1) }),
    ],
    h,
  );
  await send(
    long.key,
    [
      makeEvent(long.projectId, { event_id: 'l-5', 'event.timestamp': at(-5) }),
      makeEvent(long.projectId, { event_id: 'l-9', 'event.timestamp': at(-9) }),
      makeEvent(long.projectId, { event_id: 'l-30', 'event.timestamp': at(-30) }),
    ],
    h,
  );
  const maintained = await h.admin('POST', '/api/v1/retention/maintain');
  assert.equal(maintained.statusCode, 200, maintained.body);
  const report = maintained.json();
  // Day -6 held only the 3-day project's events: dropped. Days -7 and -4 were empty and 3 days past: dropped.
  // Day -5 also holds the 10-day project's event: kept, the 3-day project's event in it too.
  assert.deepEqual(report.dropped.sort(), [partitionOf(-7), partitionOf(-6), partitionOf(-4)].sort());
  assert.deepEqual(report.postponed, []);
  // Strays of the default partition: s-30 (3 days) and l-30 (10 days) are past; l-9 is not (day -9 of 10).
  assert.equal(report.deleted_from_default, 2);
  assert.deepEqual(await placement(h, short.projectId), { 's-5': partitionOf(-5), 's-1': partitionOf(-1) });
  assert.deepEqual(await placement(h, long.projectId), { 'l-5': partitionOf(-5), 'l-9': 'events_default' });
  // The counts of a dropped day go with it (the read API's rollup, migration 008): s-6 is no longer counted.
  const counts = await h.admin(
    'GET',
    `/api/v1/projects/${short.projectId}/event-counts?from=${encodeURIComponent(at(-8))}&to=${encodeURIComponent(new Date().toISOString())}`,
  );
  assert.equal(counts.statusCode, 200, counts.body);
  assert.equal(counts.json().total, 2, counts.body);

  // The next run makes none of the dropped days again, and drops nothing more.
  const next = (await h.admin('POST', '/api/v1/retention/maintain')).json();
  assert.deepEqual(next, { created: [], dropped: [], deleted_from_default: 0, postponed: [] });
  const names = await partitionNames(h);
  for (const gone of [-7, -6, -4]) assert.ok(!names.includes(partitionOf(gone)), gone.toString());

  // Six days on, day -5 has expired for both projects (its end is 10 days past): it goes.
  const db = await openDatabase({ url: h.database.url, dataDir: '', schema: 'ingest', poolSize: 2 });
  try {
    const later = await maintainPartitions(db, {
      now: addDays(new Date(), 6),
      defaultDays: 10,
      daysAhead: 3,
      daysBehind: 7,
      lockTimeoutMs: 5_000,
    });
    assert.ok(later.dropped.includes(partitionOf(-5)), JSON.stringify(later));
    assert.equal(later.deletedFromDefault, 1);
  } finally {
    await db.close();
  }
  assert.deepEqual(await placement(h, long.projectId), {});
}

test("forwarding's outbox and dead letters keep working across a drop", async () => {
  // An instance that does not deliver yet, so entries wait in the outbox; a database of its own.
  const h = await startIngest({ PLATFORM_SECRET_KEY: 'a'.repeat(64), ...LOCAL_RECEIVERS }, 'retention-outbox');
  try {
    await outboxAcrossDrop(h);
  } finally {
    await h.close();
  }
});

async function outboxAcrossDrop(h: IngestHarness): Promise<void> {
  const { projectId, key } = await h.project();
  await h.admin('PUT', `/api/v1/projects/${projectId}/retention`, { days: 1 });
  const receiver = await startWebhookReceiver();
  let sender: App | undefined;
  try {
    const dest = await createDestination(h, projectId, { name: 'hook', kind: 'webhook', base_url: receiver.url });
    receiver.secret = dest.secret;
    const kept = [
      makeEvent(projectId, { 'event.timestamp': at(0) }),
      makeEvent(projectId, { 'event.timestamp': at(0) }),
    ];
    const dropped = [
      makeEvent(projectId, { 'event.timestamp': at(-3) }),
      makeEvent(projectId, { 'event.timestamp': at(-3) }),
    ];
    await send(key, [...kept, ...dropped], h);
    // One event of each day dead-lettered (as after failed attempts), the others pending.
    await h.sql.query(
      `WITH moved AS (DELETE FROM ingest.outbox o USING ingest.events e
         WHERE e.id = o.event_row_id AND e.event_id = ANY($1) RETURNING o.destination_id, o.event_row_id, o.created_at, e.event_id)
       INSERT INTO ingest.dead_letters (destination_id, event_row_id, event_id, reason, attempts, first_failed_at, queued_at)
       SELECT destination_id, event_row_id, event_id, 'HTTP 500: down', 10, now(), created_at FROM moved`,
      [[kept[1]!.event_id, dropped[1]!.event_id]],
    );
    const report = (await h.admin('POST', '/api/v1/retention/maintain')).json();
    assert.ok(report.dropped.includes(partitionOf(-3)), JSON.stringify(report));

    // The dead letters still list both, with their event ids.
    assert.deepEqual(
      (await deadLetters(h, dest.id)).map((d) => d.event_id).sort(),
      [kept[1]!.event_id, dropped[1]!.event_id].sort(),
    );
    // A delivering instance sends what is left and completes the entries whose events are gone, unsent.
    sender = await buildIngestApp(
      loadIngestConfig({
        DATABASE_URL: h.database.url,
        DATA_DIR: '/tmp/unused-ingest-retention',
        LOG_LEVEL: 'silent',
        INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
        PLATFORM_SECRET_KEY: 'a'.repeat(64),
        INGEST_PARTITION_MAINTENANCE_MINUTES: '0',
        ...FAST_FORWARDING,
      }),
    );
    await sender.ready();
    const pending = async () =>
      (await h.sql.query('SELECT count(*)::int AS n FROM ingest.outbox WHERE destination_id = $1', [dest.id])).rows[0]
        .n as number;
    await waitFor('outbox emptied', async () => (await pending()) === 0);
    assert.deepEqual([...receiver.arrivals.keys()], [kept[0]!.event_id]);

    const replay = await h.admin('POST', `/api/v1/destinations/${dest.id}/dead-letters/replay`, {});
    assert.equal(replay.statusCode, 200, replay.body);
    assert.equal(replay.json().replayed, 2);
    await waitFor('replayed entries settled', async () => (await pending()) === 0);
    await waitFor('the kept one delivered', () => receiver.arrivals.get(kept[1]!.event_id as string) === 1);
    assert.equal(receiver.arrivals.has(dropped[1]!.event_id as string), false);
    assert.equal(receiver.arrivals.has(dropped[0]!.event_id as string), false);
    assert.deepEqual(await deadLetters(h, dest.id), []);
  } finally {
    await sender?.close();
    await receiver.close();
  }
}

test('the retention API and the CLI refuse bad input clearly and store nothing', async () => {
  const { projectId } = await h.project();
  const put = (body: unknown) => h.admin('PUT', `/api/v1/projects/${projectId}/retention`, body);
  const refusals: [unknown, string][] = [
    [{ days: 0 }, 'body /days must be >= 1'],
    [{ days: -1 }, 'body /days must be >= 1'],
    [{ days: 36_501 }, 'body /days must be <= 36500'],
    [{ days: 1.5 }, 'body /days must be integer,null'],
    [{ days: '30' }, 'body /days must be integer,null'],
    [{}, "body must have required property 'days'"],
    [{ days: 5, x: 1 }, "body must NOT have additional properties ('x')"],
  ];
  for (const [body, message] of refusals) {
    const res = await put(body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.deepEqual(res.json().error, { code: 'VALIDATION_ERROR', message });
  }
  const missing = await h.admin('PUT', '/api/v1/projects/no-such-project/retention', { days: 5 });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(missing.json().error, { code: 'NOT_FOUND', message: 'no project no-such-project' });
  assert.equal((await h.admin('GET', '/api/v1/projects/no-such-project/retention')).statusCode, 404);
  assert.equal((await h.admin('GET', `/api/v1/projects/${projectId}/retention`)).json().days, null);

  const config = loadIngestConfig({
    DATABASE_URL: h.database.url,
    LOG_LEVEL: 'silent',
    DATA_DIR: '/tmp/unused',
    INGEST_RETENTION_DAYS: '10',
  });
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await ingestCommand(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err: err.join('\n') };
  };
  const notNumber = await run('retention', 'set', projectId, 'thirty');
  assert.equal(notNumber.code, 2);
  assert.match(notNumber.err, /DAYS must be a whole number from 1 to 36500 or "default", got "thirty"/);
  const zero = await run('retention', 'set', projectId, '0');
  assert.equal(zero.code, 1);
  assert.match(zero.err, /days: must be a whole number of days from 1 to 36,500/);
  const unknown = await run('retention', 'set', 'no-such-project', '5');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /no project no-such-project/);
  assert.equal((await h.admin('GET', `/api/v1/projects/${projectId}/retention`)).json().days, null);

  const set = await run('retention', 'set', projectId, '45');
  assert.equal(set.code, 0, set.err);
  assert.deepEqual(set.out, [`${projectId}: 45 days (its own setting)`]);
  assert.equal((await h.admin('GET', `/api/v1/projects/${projectId}/retention`)).json().effective_days, 45);
  const back = await run('retention', 'set', projectId, 'default', '--json');
  assert.deepEqual(JSON.parse(back.out.join('\n')), {
    project_id: projectId,
    days: null,
    default_days: 10,
    effective_days: 10,
  });
  const shown = await run('retention', 'show', projectId);
  assert.deepEqual(shown.out, [`${projectId}: 10 days (the default, INGEST_RETENTION_DAYS)`]);
  const listed = await run('partitions', 'list', '--json');
  assert.ok(JSON.parse(listed.out.join('\n')).items.some((p: { name: string }) => p.name === partitionOf(0)));
  const maintained = await run('partitions', 'maintain');
  assert.equal(maintained.code, 0, maintained.err);
  assert.match(maintained.out.join('\n'), /^created: none$/m);
});
