import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, startIngest, type IngestHarness } from './helpers.ts';
import {
  createDestination,
  deadLetters,
  destination,
  FAST_FORWARDING,
  metric,
  sendEvents,
  waitFor,
} from './forwarding-helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/vendors/webhook.ts';
import { startPostHog } from '../support/vendors/posthog.ts';
import { startSegment } from '../support/vendors/segment.ts';
import { startMixpanel } from '../support/vendors/mixpanel.ts';
import { startAmplitude } from '../support/vendors/amplitude.ts';
import { uuidV5 } from '../../src/ingest/forwarding/vendors/event-fields.ts';
import type { StandIn } from '../support/vendors/stand-in.ts';

let h: IngestHarness;
const standIns: StandIn[] = [];

before(async () => {
  h = await startIngest(FAST_FORWARDING, 'fwdvendors');
});

after(async () => {
  await h.close();
  await Promise.all(standIns.map((s) => s.close()));
});

async function use<T extends StandIn>(s: Promise<T>): Promise<T> {
  const started = await s;
  standIns.push(started);
  return started;
}

/** A project with one destination pointing at a stand-in. */
async function setup(
  kind: string,
  baseUrl: string,
  credentials: Record<string, string>,
  settings?: Record<string, unknown>,
) {
  const { projectId, key } = await h.project();
  const dest = await createDestination(h, projectId, {
    name: kind,
    kind,
    base_url: baseUrl,
    credentials,
    ...(settings ? { settings } : {}),
  });
  return { projectId, key, dest };
}

async function webhook(): Promise<{
  receiver: WebhookReceiver;
  projectId: string;
  key: string;
  dest: Record<string, any>;
}> {
  const receiver = await use(startWebhookReceiver());
  const { projectId, key, dest } = await setup('webhook', `${receiver.url}/hooks/events`, {});
  receiver.secret = dest.secret;
  return { receiver, projectId, key, dest };
}

test('webhook: the accepted events are POSTed unchanged as {events:[...]}, signed with the secret shown once', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  assert.match(dest.secret, /^whsec_/);
  assert.deepEqual(dest.credential_fields, ['secret']);
  const shown = await destination(h, dest.id);
  assert.equal(shown.secret, undefined);
  assert.ok(!JSON.stringify(shown).includes(dest.secret));

  const events = [
    makeEvent(projectId, { 'unknown.field': { nested: [1, 'two'] }, 'user.id': 'user-42' }),
    makeEvent(projectId, { 'event.type': 'page.view', 'page.title': 'Café ☕' }),
  ];
  await sendEvents(h, key, events);
  await waitFor('webhook delivery', () => receiver.events.size === 2);
  assert.equal(receiver.badSignatures, 0);
  for (const e of events) assert.deepEqual(receiver.events.get(e.event_id as string), e);
  const request = receiver.received[0]!;
  assert.equal(request.url.pathname, '/hooks/events');
  assert.match(String(request.headers['x-ingest-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
  assert.equal(request.headers['content-type'], 'application/json');
  await waitFor('outbox emptied', async () => (await destination(h, dest.id)).pending === 0);
  // The delivery is counted just after its outbox rows are gone (deliver.ts): waited for, not read at once.
  await waitFor(
    'delivery recorded',
    async () => (await metric(h, 'ingest_forwarding_delivered_total', { destination: dest.id })) === 2,
  );
});

test('webhook: a receiver holding the wrong secret refuses every request, and the events end as dead letters after the attempts', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  receiver.secret = 'not-the-secret-at-all';
  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  const dead = await waitFor('dead letter', async () => (await deadLetters(h, dest.id)).at(0));
  assert.equal(dead.event_id, event.event_id);
  assert.match(dead.reason, /^HTTP 401/);
  assert.equal(dead.attempts, 3);
  assert.equal(receiver.received.length, 3);
  assert.equal(receiver.events.size, 0);
});

test('posthog: /batch/ with the api key, each event in properties unchanged, event_id as uuid (name-based when not a UUID)', async () => {
  const posthog = await use(startPostHog('phc_key_1'));
  const { projectId, key } = await setup('posthog', posthog.url, { api_key: 'phc_key_1' });
  const a = makeEvent(projectId, { 'user.id': 'u-1', 'event.name': 'Checkout clicked' });
  const b = makeEvent(projectId, { event_id: 'order-77/line-3' });
  await sendEvents(h, key, [a, b]);
  await waitFor('posthog delivery', () => posthog.events.size === 2);
  const first = posthog.events.get(a.event_id as string)!;
  assert.deepEqual(first.properties, a);
  assert.equal(first.event, 'Checkout clicked');
  assert.equal(first.distinct_id, 'u-1');
  assert.equal(first.timestamp, a['event.timestamp']);
  const second = posthog.events.get(uuidV5('order-77/line-3'))!;
  assert.deepEqual(second.properties, b);
  assert.equal(second.event, 'ui.click');
  assert.equal(second.distinct_id, 'sess-1');
  assert.equal(posthog.received[0]!.url.pathname, '/batch/');
});

test("a base_url with a query string (a proxy routing or authorising by it) keeps it on every vendor's endpoint", async () => {
  const vendors: { kind: string; standIn: StandIn; credentials: Record<string, string>; path: string }[] = [
    { kind: 'posthog', standIn: await use(startPostHog('phc_q')), credentials: { api_key: 'phc_q' }, path: '/batch/' },
    {
      kind: 'segment',
      standIn: await use(startSegment('seg_q')),
      credentials: { write_key: 'seg_q' },
      path: '/v1/batch',
    },
    {
      kind: 'mixpanel',
      standIn: await use(startMixpanel('mp_q')),
      credentials: { project_token: 'mp_q' },
      path: '/import',
    },
    {
      kind: 'amplitude',
      standIn: await use(startAmplitude('amp_q_key')),
      credentials: { api_key: 'amp_q_key' },
      path: '/2/httpapi',
    },
  ];
  for (const v of vendors) {
    const { projectId, key } = await setup(v.kind, `${v.standIn.url}/?via=proxy&tenant=t%201`, v.credentials);
    await sendEvents(h, key, [makeEvent(projectId, { 'user.id': 'user-12345', 'session.id': 'session-abc' })]);
    await waitFor(`${v.kind} delivery`, () => v.standIn.received.length > 0);
    const url = v.standIn.received[0]!.url;
    assert.equal(url.pathname, v.path, v.kind);
    assert.equal(url.searchParams.get('via'), 'proxy', `${v.kind} kept the query: ${url.search}`);
    assert.equal(url.searchParams.get('tenant'), 't 1', v.kind);
  }
  // Mixpanel's own parameter is added to the proxy's, once.
  assert.deepEqual(vendors[2]!.standIn.received[0]!.url.searchParams.getAll('strict'), ['1']);
});

test("a base_url pasted as the vendor's full endpoint (Amplitude's serverUrl, …/batch/, …/v1/batch, …/import) gets the path once, and delivers", async () => {
  const vendors: { kind: string; standIn: StandIn; credentials: Record<string, string>; base: string; path: string }[] =
    [
      {
        kind: 'posthog',
        standIn: await use(startPostHog('phc_e')),
        credentials: { api_key: 'phc_e' },
        base: '/batch',
        path: '/batch/',
      },
      {
        kind: 'segment',
        standIn: await use(startSegment('seg_e')),
        credentials: { write_key: 'seg_e' },
        base: '/v1/batch/',
        path: '/v1/batch',
      },
      {
        kind: 'mixpanel',
        standIn: await use(startMixpanel('mp_e')),
        credentials: { project_token: 'mp_e' },
        base: '/import?strict=1',
        path: '/import',
      },
      {
        kind: 'amplitude',
        standIn: await use(startAmplitude('amp_e_key')),
        credentials: { api_key: 'amp_e_key' },
        base: '/2/httpapi',
        path: '/2/httpapi',
      },
    ];
  for (const v of vendors) {
    const { projectId, key, dest } = await setup(v.kind, `${v.standIn.url}${v.base}`, v.credentials);
    await sendEvents(h, key, [makeEvent(projectId, { 'user.id': 'user-12345', 'session.id': 'session-abc' })]);
    await waitFor(`${v.kind} delivery`, async () => (await destination(h, dest.id)).pending === 0);
    assert.deepEqual(
      v.standIn.received.map((r) => r.url.pathname),
      [v.path],
      v.kind,
    );
    assert.deepEqual(await deadLetters(h, dest.id), [], v.kind);
  }
});

test('posthog: 429 with Retry-After is honoured before the next attempt, then the batch is delivered', async () => {
  const posthog = await use(startPostHog('phc_key_2'));
  const { projectId, key, dest } = await setup('posthog', posthog.url, { api_key: 'phc_key_2' });
  posthog.fail({
    status: 429,
    headers: { 'retry-after': '1' },
    body: { type: 'throttled', code: 'RATE_LIMITED', detail: 'Rate limit exceeded' },
  });
  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  await waitFor('posthog delivery after 429', () => posthog.events.size === 1, 15_000);
  assert.equal(posthog.received.length, 2);
  const gap = posthog.received[1]!.at - posthog.received[0]!.at;
  assert.ok(gap >= 950, `second attempt came ${gap} ms after the 429 with Retry-After: 1`);
  await waitFor(
    'delivery recorded',
    async () => (await metric(h, 'ingest_forwarding_delivered_total', { destination: dest.id })) === 1,
  );
  assert.equal(await metric(h, 'ingest_forwarding_retried_total', { destination: dest.id }), 1);
  assert.deepEqual(await deadLetters(h, dest.id), []);
});

test('segment: /v1/batch with the write key, messageId is event_id; 5xx answers are retried until it succeeds', async () => {
  const segment = await use(startSegment('seg_wk'));
  const { projectId, key, dest } = await setup('segment', segment.url, { write_key: 'seg_wk' });
  segment.fail({ status: 503, body: 'Service Unavailable' });
  segment.fail({ status: 502, body: 'Bad Gateway' });
  const events = [makeEvent(projectId, { 'user.id': 'user-9' }), makeEvent(projectId)];
  await sendEvents(h, key, events);
  await waitFor('segment delivery', () => segment.events.size === 2);
  // The two scripted failures, then the deliveries: one request, or two when the events' jittered retries come due apart.
  const delivered = segment.received
    .slice(2)
    .flatMap((r) =>
      (JSON.parse(r.body.toString('utf8')) as { batch: { messageId: string }[] }).batch.map((e) => e.messageId),
    );
  assert.deepEqual(
    delivered.sort(),
    events.map((e) => e.event_id as string).sort(),
    'each event delivered once after the two failures',
  );
  assert.equal(segment.dropped, 0);
  const withUser = segment.events.get(events[0]!.event_id as string)!;
  assert.deepEqual(withUser.properties, events[0]);
  assert.equal(withUser.userId, 'user-9');
  assert.equal(withUser.type, 'track');
  const anonymous = segment.events.get(events[1]!.event_id as string)!;
  assert.equal(anonymous.userId, undefined);
  assert.equal(anonymous.anonymousId, 'sess-1');
  assert.deepEqual(await deadLetters(h, dest.id), []);
});

test('segment: batches stay under 500 KB and 32 KB per event, counted as Segment does (1 KB = 1,000 bytes); a larger event goes to the dead letters, the others arrive', async () => {
  const segment = await use(startSegment('seg_wk2'));
  const { projectId, key, dest } = await setup('segment', segment.url, { write_key: 'seg_wk2' });
  const events = Array.from({ length: 40 }, () => makeEvent(projectId, { metadata: { blob: 'x'.repeat(30_000) } }));
  // Over 32,000 bytes as Segment receives it, yet under 32 KiB: too big for Segment.
  const tooBig = makeEvent(projectId, { metadata: { blob: 'y'.repeat(32_100) } });
  await sendEvents(h, key, [...events.slice(0, 20), tooBig, ...events.slice(20)]);
  await waitFor('segment delivery of 40 events', () => segment.events.size === 40);
  assert.ok(
    segment.received.length >= 3,
    `40 events of 30 KB need at least 3 requests, got ${segment.received.length}`,
  );
  for (const r of segment.received) assert.ok(r.body.length <= 500_000, `a request of ${r.body.length} bytes`);
  const dead = await waitFor('dead letter of the large event', async () => (await deadLetters(h, dest.id)).at(0));
  assert.equal(dead.event_id, tooBig.event_id);
  assert.match(dead.reason, /^event is 32\d{3} bytes as segment receives it, over its limit of 32000 bytes$/);
  assert.ok(Number(/^event is (\d+)/.exec(dead.reason)![1]) < 32 * 1024);
});

test('mixpanel: /import with strict=1, $insert_id is event_id; a record it refuses goes to the dead letters, the rest are imported once', async () => {
  const mixpanel = await use(startMixpanel('mp_token'));
  const { projectId, key, dest } = await setup('mixpanel', mixpanel.url, { project_token: 'mp_token' });
  const good = [makeEvent(projectId, { 'user.id': 'user-1' }), makeEvent(projectId)];
  const bad = makeEvent(projectId, { 'user.id': 'null' });
  await sendEvents(h, key, [good[0]!, bad, good[1]!]);
  const dead = await waitFor('mixpanel dead letter', async () => (await deadLetters(h, dest.id)).at(0));
  assert.equal(dead.event_id, bad.event_id);
  assert.match(dead.reason, /distinct_id/);
  assert.equal(mixpanel.events.size, 2);
  const imported = mixpanel.events.get(good[0]!.event_id as string)!;
  assert.equal(imported.event, 'ui.click');
  const { time, distinct_id, $insert_id, ...rest } = imported.properties as Record<string, unknown>;
  assert.deepEqual(rest, good[0]);
  assert.equal(time, Date.parse(good[0]!['event.timestamp'] as string));
  assert.equal(distinct_id, 'user-1');
  assert.equal($insert_id, good[0]!.event_id);
  assert.equal(mixpanel.received[0]!.url.searchParams.get('strict'), '1');
  // The good events were imported by the first request and never sent again; only the refused one was retried.
  const sentGood = mixpanel
    .bodies()
    .flatMap((b) => b as Record<string, any>[])
    .filter((r) => r.properties.$insert_id === good[0]!.event_id);
  assert.equal(sentGood.length, 1);
  assert.equal(await metric(h, 'ingest_forwarding_dead_lettered_total', { destination: dest.id }), 1);
});

test('mixpanel: a service account authenticates with project_id; event ids Mixpanel cannot take are hashed to 36 characters', async () => {
  const mixpanel = await use(
    startMixpanel('unused', { username: 'sa.user', secret: 'sa-secret-123', projectId: '424242' }),
  );
  const { projectId, key } = await setup(
    'mixpanel',
    mixpanel.url,
    { service_account_username: 'sa.user', service_account_secret: 'sa-secret-123' },
    { project_id: '424242' },
  );
  const event = makeEvent(projectId, { event_id: `long:${'z'.repeat(60)}` });
  await sendEvents(h, key, [event]);
  await waitFor('mixpanel import', () => mixpanel.events.size === 1);
  const [insertId] = [...mixpanel.events.keys()];
  assert.match(insertId!, /^[0-9a-f]{36}$/);
  assert.equal(mixpanel.received[0]!.url.searchParams.get('project_id'), '424242');
});

test('amplitude: /2/httpapi, insert_id is event_id; events it refuses are dead-lettered and the rest sent again without them', async () => {
  const amplitude = await use(startAmplitude('amp_key_1'));
  const { projectId, key, dest } = await setup('amplitude', amplitude.url, { api_key: 'amp_key_1' });
  const good = [
    makeEvent(projectId, { 'user.id': 'user-12345', 'session.id': 'session-abc' }),
    makeEvent(projectId, { 'session.id': 'session-def' }),
  ];
  const bad = makeEvent(projectId, { 'user.id': 'bob', 'session.id': 'session-ghi' });
  await sendEvents(h, key, [good[0]!, bad, good[1]!]);
  await waitFor('amplitude delivery', () => amplitude.events.size === 2);
  const dead = await waitFor('amplitude dead letter', async () => (await deadLetters(h, dest.id)).at(0));
  assert.equal(dead.event_id, bad.event_id);
  assert.match(dead.reason, /invalid field user_id/);
  const first = amplitude.events.get(good[0]!.event_id as string)!;
  assert.deepEqual(first.event_properties, good[0]);
  assert.equal(first.user_id, 'user-12345');
  assert.equal(first.device_id, 'session-abc');
  assert.equal(first.time, Date.parse(good[0]!['event.timestamp'] as string));
  assert.ok(!amplitude.events.has(bad.event_id as string));
});

test('amplitude: a 429 without Retry-After is retried after the configured backoff (at most 100 ms here), not a fixed 30 s', async () => {
  const amplitude = await use(startAmplitude('amp_key_429'));
  const { projectId, key, dest } = await setup('amplitude', amplitude.url, { api_key: 'amp_key_429' });
  amplitude.fail(
    { status: 429, body: { code: 429, error: 'Too many requests for some devices and users', throttled_events: [0] } },
    2,
  );
  const event = makeEvent(projectId, { 'session.id': 'session-429' });
  await sendEvents(h, key, [event]);
  await waitFor('amplitude delivery after two 429s', () => amplitude.events.size === 1);
  assert.equal(amplitude.received.length, 3);
  for (let i = 1; i < 3; i++) {
    const gap = amplitude.received[i]!.at - amplitude.received[i - 1]!.at;
    assert.ok(gap < 5_000, `attempt ${i + 1} came ${gap} ms after a 429 without Retry-After`);
  }
  assert.deepEqual(await deadLetters(h, dest.id), []);
});

test('amplitude: an answer echoing the API key never puts it in a dead letter', async () => {
  const amplitude = await use(startAmplitude('amp_right_key'));
  const { projectId, key, dest } = await setup('amplitude', amplitude.url, { api_key: 'amp_wrong_key_XYZ' });
  await sendEvents(h, key, [makeEvent(projectId, { 'session.id': 'session-123' })]);
  const dead = await waitFor('dead letter', async () => (await deadLetters(h, dest.id)).at(0));
  assert.match(dead.reason, /Invalid API key: \[redacted\]/);
  assert.ok(!dead.reason.includes('amp_wrong_key_XYZ'));
  assert.ok(amplitude.received.length >= 1);
});

test('a destination that does not answer in time is retried; the events arrive once it answers', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  receiver.fail({ delayMs: 2_000 });
  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  // The receiver took the first request but answered too late: the event is sent again (at least once).
  await waitFor('delivery after a timeout', () => receiver.arrivals.get(event.event_id as string) === 2);
  await waitFor('outbox emptied', async () => (await destination(h, dest.id)).pending === 0);
  assert.equal(receiver.received.length, 2);
  assert.deepEqual(await deadLetters(h, dest.id), []);
  assert.equal(await metric(h, 'ingest_forwarding_retried_total', { destination: dest.id }), 1);
});

test('a batch refused with 400 without naming an event is split to find it: only that event is dead-lettered', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  const events = [makeEvent(projectId), makeEvent(projectId), makeEvent(projectId)];
  const poison = events[1]!.event_id as string;
  const original = receiver.answerFor.bind(receiver);
  receiver.answerFor = (request) =>
    request.body.toString().includes(poison) ? { status: 400, body: { error: 'cannot take this' } } : original(request);
  await sendEvents(h, key, events);
  const dead = await waitFor('dead letter', async () => (await deadLetters(h, dest.id)).at(0));
  assert.equal(dead.event_id, poison);
  assert.match(dead.reason, /^HTTP 400: .*cannot take this/);
  await waitFor('others delivered', () => receiver.events.size === 2);
  assert.ok(!receiver.events.has(poison));
  assert.equal((await deadLetters(h, dest.id)).length, 1);
});

test('dead letters are listed and replayed: after the receiver recovers they are delivered and leave the list', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  receiver.fail({ status: 400, body: { error: 'not today' } }, 3);
  const event = makeEvent(projectId);
  await sendEvents(h, key, [event]);
  const list = await waitFor('dead letter', async () => {
    const l = await deadLetters(h, dest.id);
    return l.length ? l : undefined;
  });
  assert.equal(list[0]!.event_id, event.event_id);
  assert.equal(list[0]!.attempts, 3);
  assert.ok(Date.parse(list[0]!.dead_at) >= Date.parse(list[0]!.first_failed_at));
  const replay = await h.admin('POST', `/api/v1/destinations/${dest.id}/dead-letters/replay`, {});
  assert.equal(replay.statusCode, 200);
  assert.deepEqual(replay.json(), { replayed: 1 });
  await waitFor('replayed delivery', () => receiver.events.has(event.event_id as string));
  assert.deepEqual(await deadLetters(h, dest.id), []);
  assert.deepEqual(
    (await h.admin('POST', `/api/v1/destinations/${dest.id}/dead-letters/replay`, { ids: [999999] })).json(),
    { replayed: 0 },
  );
});

test('lag is reported per destination: the age of the oldest pending event, 0 once delivered', async () => {
  const { receiver, projectId, key, dest } = await webhook();
  receiver.fail({ delayMs: 450 });
  await sendEvents(h, key, [makeEvent(projectId)]);
  await new Promise((r) => setTimeout(r, 300));
  const lag = await metric(h, 'ingest_forwarding_lag_seconds', { destination: dest.id, kind: 'webhook' });
  assert.ok(lag !== undefined && lag >= 0.25, `lag ${lag}`);
  assert.equal(await metric(h, 'ingest_forwarding_pending_events', { destination: dest.id }), 1);
  await waitFor('delivery', () => receiver.events.size === 1);
  await waitFor(
    'lag back to 0',
    async () => (await metric(h, 'ingest_forwarding_lag_seconds', { destination: dest.id })) === 0,
  );
});
