import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeElements } from '../../src/ingest/events/pg-array.ts';
import { rawEvents } from '../../src/ingest/events/raw-events.ts';
import { validateBatch } from '../../src/ingest/events/validate.ts';

const P = 'proj-a';
let next = 0;
const event = (extra: Record<string, unknown> = {}) => ({
  event_id: `e-${next++}`,
  project_id: P,
  'session.id': 's-1',
  'event.type': 'page.view',
  'event.timestamp': '2025-01-02T03:04:05Z',
  ...extra,
});

/**
 * Validates a body's events both ways, from its bytes and by serialising each event, and checks that the stored
 * bodies and the rejections are the same: storing the client's bytes must never change what is stored.
 * Returns how many events were taken from the bytes.
 */
function sameEitherWay(body: string): { fromBytes: number; stored: string[] } {
  const bytes = Buffer.from(body);
  const events = (JSON.parse(body) as { events: unknown[] }).events;
  const raw = rawEvents(bytes, events.length);
  const serialised = validateBatch(events, P);
  const fromBytes = validateBatch(events, P, raw);
  assert.deepEqual(fromBytes.rejections, serialised.rejections, body);
  assert.ok(fromBytes.prepared.bodies.equals(serialised.prepared.bodies), `stored bodies differ for ${body}`);
  const stored = decodeElements(fromBytes.prepared.bodies);
  // And what is stored is what was validated: the serialised parsed event.
  const accepted = events.filter((_, i) => !serialised.rejections.some((r) => r.index === i));
  assert.deepEqual(
    stored,
    accepted.map((e) => JSON.stringify(e)),
  );
  // Taken from the bytes: canonical, and as many keys written as parsed (a repeated key makes them differ).
  let canonical = 0;
  if (raw)
    for (let i = 0; i < events.length; i++)
      if (raw.spans[2 * i + 1]! >= 0 && raw.members[i] === keys(events[i])) canonical++;
  return { fromBytes: canonical, stored };
}

/** Object members at every depth of a parsed value (NaN past 100 levels, which validation refuses anyway). */
function keys(value: unknown, depth = 0): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (depth > 100) return NaN;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + keys(v, depth + 1), 0);
  return Object.entries(value).reduce((n, [, v]) => n + 1 + keys(v, depth + 1), 0);
}

test('compact events as JSON.stringify writes them are stored from the request bytes, byte for byte the same', () => {
  const events = [
    event({
      'page.title': 'Café — “quotes” \u2028 and \\ "escapes"\n\t',
      'event.sequence': 12,
      metadata: { a: [1, -2, 0.5, true, null, { b: 'c' }], n: 1.5e-7 },
    }),
    event(),
  ];
  const body = JSON.stringify({ events });
  const { fromBytes, stored } = sameEitherWay(body);
  assert.equal(fromBytes, 2);
  assert.equal(stored[0], JSON.stringify(events[0]));
});

test('events whose bytes would serialise differently are serialised instead, and store the same either way', () => {
  const e = (text: string) =>
    text.replace(
      '@',
      `"event_id":"x-${next++}","project_id":"${P}","session.id":"s","event.type":"custom","event.timestamp":"2025-01-02T03:04:05Z"`,
    );
  const shapes = [
    e('{ @ }'), // whitespace
    e('{@,\n"m":1}'),
    e('{@,"t":"caf\\u00e9"}'), // \u escape of an ordinary character
    e('{@,"t":"a\\/b"}'), // an escaped slash
    e('{@,"n":1.50}'), // numbers spelt otherwise than JavaScript prints them
    e('{@,"n":1e3}'),
    e('{@,"n":1E-7}'),
    e('{@,"n":-0}'),
    e('{@,"n":12345678901234567890}'), // beyond 2^53
    e('{@,"n":1e400}'), // Infinity, serialised as null
    e('{@,"a":1,"a":2}'), // a repeated key: JSON.parse keeps the last
    e('{@,"m":{"k":[{"z":1,"z":2}]}}'), // repeated deep down
    e('{@,"m":{"b":1,"2":2,"1":3}}'), // array-index keys, which V8 orders first
    e('{@,"x":"\\ud83d\\ude00"}'), // a surrogate pair written as escapes
  ];
  for (const shape of shapes) assert.equal(sameEitherWay(`{"events":[${shape}]}`).fromBytes, 0, shape);
  // The canonical forms of the same values are taken from the bytes.
  for (const shape of [
    e('{@,"n":1.5}'),
    e('{@,"n":1e-7}'),
    e('{@,"n":123456789012345}'),
    e('{@,"n":-5}'),
    e('{@,"m":{"b":1,"b2":2}}'),
    e('{@,"x":"😀"}'),
    e('{@,"__proto__":{"polluted":true}}'),
  ]) {
    assert.equal(sameEitherWay(`{"events":[${shape}]}`).fromBytes, 1, shape);
  }
});

test('events that cannot be stored are still refused when their bytes are read, naming the field', () => {
  const body = `{"events":[${JSON.stringify(event()).slice(0, -1)},"t":"a\\u0000b"},${JSON.stringify(event()).slice(0, -1)},"t":"\\ud800"}]}`;
  const events = (JSON.parse(body) as { events: unknown[] }).events;
  const { rejections } = validateBatch(events, P, rawEvents(Buffer.from(body), events.length));
  assert.deepEqual(
    rejections.map((r) => [r.index, r.reason, r.error.split(':')[0]]),
    [
      [0, 'unstorable', 't'],
      [1, 'unstorable', 't'],
    ],
  );
});

test('an event over 100 KB is refused from its bytes as it is when serialised', () => {
  const body = JSON.stringify({
    events: [event({ big: 'x'.repeat(100 * 1024) }), event({ big: 'é'.repeat(40 * 1024) })],
  });
  const events = (JSON.parse(body) as { events: unknown[] }).events;
  const raw = rawEvents(Buffer.from(body), events.length)!;
  assert.ok(raw.spans[1]! >= 0 && raw.spans[3]! >= 0);
  const { rejections, prepared } = validateBatch(events, P, raw);
  assert.deepEqual(
    rejections.map((r) => [r.index, r.reason]),
    [[0, 'too_large']],
  );
  assert.deepEqual(validateBatch(events, P).rejections, rejections);
  assert.equal(prepared.count, 1);
});

test('the events array is found where JSON.parse finds it: the last "events" key at the top, not one nested or escaped', () => {
  const a = JSON.stringify(event());
  const b = JSON.stringify(event());
  const spans = (body: string) => {
    const events = (JSON.parse(body) as { events: unknown[] }).events;
    const raw = rawEvents(Buffer.from(body), events.length);
    sameEitherWay(body);
    return (
      raw &&
      Array.from(raw.spans)
        .map((at, i) => (i % 2 === 0 ? body.slice(at, raw.spans[i + 1]) : undefined))
        .filter((x) => x !== undefined)
    );
  };
  assert.deepEqual(spans(`{"events":[${a}],"events":[${b}]}`), [b]);
  assert.deepEqual(spans(`{"meta":{"events":[${a}]},"events":[${b}]}`), [b]);
  assert.deepEqual(spans(` {\n "other" : [1, {"x": "]"}],\t"events" : [ ${a} , ${b} ] } `), [a, b]);
  assert.equal(spans(`{"\\u0065vents":[${a}]}`), undefined);
  assert.equal(spans(`{"events":[${a}],"\\u0065vents":[${b}]}`), undefined);
  // Elements that are not events are rejected by validation either way.
  sameEitherWay(`{"events":[1,"s",null,[${a}],${a},{}]}`);
});

test('randomly shaped events store the same from their bytes as serialised', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const value = (depth: number): unknown => {
    const kind = Math.floor(random() * (depth > 3 ? 4 : 6));
    if (kind === 0) return pick([0, 1, -1, 2.5, 1e21, 1e-7, 123456789, -0.001, 2 ** 53 + 2]);
    if (kind === 1) return pick(['', 'a', 'é', '"', '\\', '\n', '\u0001', '😀', '\u2028', 'key']);
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return pick(['x', 'y']);
    if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(random() * 4) }, () => [
        pick(['a', 'b', '0', '10', 'é', 'k k', '__proto__']),
        value(depth + 1),
      ]),
    );
  };
  const spacing = (json: string) => json.replace(/([,:[{])/g, (c) => (random() < 0.1 ? `${c} ` : c));
  let taken = 0;
  for (let round = 0; round < 200; round++) {
    const events = Array.from({ length: 5 }, () => event({ metadata: value(0) as object, v: value(0) }));
    const body = `{"events":[${events.map((e) => spacing(JSON.stringify(e))).join(',')}]}`;
    taken += sameEitherWay(body).fromBytes;
  }
  // Both ways were exercised.
  assert.ok(taken > 50 && taken < 950, `${taken} of 1,000 events taken from their bytes`);
});

test('through the service: what PostgreSQL stores is the serialised event, whether it came from the bytes or not', async (t) => {
  const { startIngest, makeEvent } = await import('./helpers.ts');
  const h = await startIngest({}, 'raw_events');
  t.after(() => h.close());
  const { projectId, key } = await h.project();
  const compact = makeEvent(projectId, { 'page.title': 'Café “x”\n', metadata: { n: 1.5, list: [1, { a: null }] } });
  const pretty = makeEvent(projectId, { metadata: { n: 2 } });
  const prettyText = JSON.stringify(pretty, null, 2).replace('"metadata"', '"metadata": {"n": 1.0}, "metadata"');
  const answer = await h.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    payload: `{"events":[${JSON.stringify(compact)},${prettyText}]}`,
  });
  assert.equal(answer.statusCode, 202, answer.body);
  assert.equal(answer.json().accepted, 2);
  const stored = async (id: unknown) =>
    (await h.sql.query('SELECT body::text AS text FROM ingest.events WHERE event_id = $1', [id])).rows[0]
      .text as string;
  assert.equal(await stored(compact.event_id), JSON.stringify(compact));
  assert.equal(await stored(pretty.event_id), JSON.stringify(JSON.parse(prettyText)));
  assert.deepEqual(JSON.parse(await stored(pretty.event_id)).metadata, { n: 2 });
});

test('hostile events read from their bytes are refused as when serialised: too deep, too large, not objects', () => {
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const base = JSON.stringify(event()).slice(0, -1);
  const body = `{"events":[${base},"x":${deep}},${JSON.stringify(event())},${base},"m":{"a":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}},${base},"big":"${'y'.repeat(110_000)}"},${deep}]}`;
  const events = (JSON.parse(body) as { events: unknown[] }).events;
  const { rejections } = validateBatch(events, P, rawEvents(Buffer.from(body), events.length));
  assert.deepEqual(
    rejections.map((r) => [r.index, r.reason]),
    [
      [0, 'too_deep'],
      [2, 'too_deep'],
      [3, 'too_large'],
      [4, 'not_object'],
    ],
  );
  sameEitherWay(body);
});
