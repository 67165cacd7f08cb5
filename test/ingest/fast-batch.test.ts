import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { eventTemplates } from '../../bench/support/events.ts';
import { fastBatch } from '../../src/ingest/events/fast-batch.ts';
import { decodeElements, decodeTimestamps } from '../../src/ingest/events/pg-array.ts';
import { rawEvents } from '../../src/ingest/events/raw-events.ts';
import { validateBatch } from '../../src/ingest/events/validate.ts';

const P = 'proj-a';

/** What the ordinary path makes of a body: JSON.parse, then validation with the events' bytes. Undefined when refused whole. */
function ordinary(body: Buffer) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return undefined;
  }
  const events = (parsed as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length > 1000) return undefined;
  return { ...validateBatch(events, P, rawEvents(body, events.length)), received: events.length, events };
}

/**
 * The property the fast path rests on: a batch it takes is one the ordinary path accepts whole, with the same
 * columns byte for byte. Returns whether it took the batch.
 */
function agrees(body: Buffer, label = body.toString()): boolean {
  // Its callers hand it only valid UTF-8 (readBody refuses the rest).
  const fast = isUtf8(body) ? fastBatch(body, P) : undefined;
  if (fast === undefined) return false;
  const slow = ordinary(body);
  assert.ok(slow, `taken from its bytes but refused whole by the ordinary path: ${label}`);
  assert.deepEqual(slow.rejections, [], `taken from its bytes but some events rejected: ${label}`);
  assert.equal(fast.received, slow.received, label);
  for (const column of ['bodies', 'projects', 'eventIds', 'types', 'sessions', 'timestamps'] as const) {
    assert.ok(fast.prepared[column].equals(slow.prepared[column]), `${column} differ for ${label}`);
  }
  assert.equal(fast.prepared.count, slow.prepared.count);
  // And what is stored is the serialised parsed event, as always.
  assert.deepEqual(
    decodeElements(fast.prepared.bodies),
    slow.events.map((e) => JSON.stringify(e)),
  );
  return true;
}

const base = (extra: Record<string, unknown> = {}, id = 'e-1') => ({
  event_id: id,
  project_id: P,
  'session.id': 's-1',
  'event.type': 'page.view',
  'event.timestamp': '2025-01-02T03:04:05.123Z',
  ...extra,
});
const body = (...events: unknown[]) => Buffer.from(JSON.stringify({ events }));

test("the benchmark's and an SDK's batches are read from their bytes, with the columns the ordinary path makes", () => {
  const templates = eventTemplates(P);
  const batch = Buffer.from(`{"events":[${templates.map((t, i) => t.replace('@ID@', `id-${i}`)).join(',')}]}`);
  assert.equal(agrees(batch, 'bench batch'), true);
  const fast = fastBatch(batch, P)!;
  assert.equal(fast.received, 1000);
  assert.deepEqual(decodeElements(fast.prepared.eventIds).slice(0, 2), ['id-0', 'id-1']);
  assert.deepEqual(decodeTimestamps(fast.prepared.timestamps).slice(0, 1), [Date.UTC(2025, 2, 4, 10, 0, 0)]);
  assert.equal(
    agrees(
      body(
        base({ 'ui.element.text': 'Grüße ☕ 𝄞', metadata: { a: [1, 2.5, -3, 1e21, true, null, { b: 'x\ny"z\\' }] } }),
      ),
    ),
    true,
  );
  assert.equal(
    agrees(
      body(
        base({ 'api.status_code': 201, 'api.duration_ms': 0, 'ui.state.before': '{"a":1}', 'ui.state.after': '[]' }),
      ),
    ),
    true,
  );
  assert.equal(agrees(body(base({}, 'a'), base({}, 'b'), base({}, 'c'))), true);
});

test('anything the ordinary path would reject, refuse or store differently is left to it', () => {
  const left = [
    // Not the expected layout, or not JSON.
    ' {"events":[]}',
    '{"events":[]}',
    '{"events":[] }',
    '{"a":1,"events":[]}',
    `{"events":[${JSON.stringify(base())}]}\n`,
    `{"events":[${JSON.stringify(base())}],"events":[]}`,
    `{"events":[${JSON.stringify(base()).slice(0, -1)}]}`,
    `{"events":[${JSON.stringify(base())},]}`,
    `{"events":[${JSON.stringify(base())}}]}`,
    '{"events":[1]}',
    '{"events":[[]]}',
    // Whitespace, escapes that JSON.stringify would not write, keys it would order differently, repeated keys.
    JSON.stringify({ events: [base()] }, null, 1),
    `{"events":[${JSON.stringify(base()).replace('"s-1"', '"s\\u002d1"')}]}`,
    `{"events":[${JSON.stringify(base()).replace('"s-1"', '"s\\/1"')}]}`,
    `{"events":[${JSON.stringify(base()).replace('{', '{"1":0,')}]}`,
    `{"events":[${JSON.stringify(base()).replace('{', '{"event_id":"x",')}]}`,
    `{"events":[${JSON.stringify(base({ m: { a: 1 } })).replace('"a":1', '"a":1,"a":2')}]}`,
    // Numbers not spelt as JavaScript prints them.
    ...['1.0', '1e3', '-0', '01', '1.', '-', '9007199254740993', '1E21', '0.10', '+1', '.5'].map(
      (n) => `{"events":[${JSON.stringify(base({ m: 7 })).replace('"m":7', `"m":${n}`)}]}`,
    ),
    // Literals cut short, raw control characters, an escape in a column's value or a key.
    `{"events":[${JSON.stringify(base({ m: true })).replace('true', 'tru')}]}`,
    `{"events":[${JSON.stringify(base({ m: 'a' })).replace('"a"', '"a\tb"')}]}`,
    `{"events":[${JSON.stringify(base({}, 'a"b'))}]}`,
    `{"events":[${JSON.stringify(base({ 'x"y': 1 }))}]}`,
  ];
  for (const text of left) assert.equal(agrees(Buffer.from(text), text), false, text);
  const rejected = [
    base({ project_id: 'other' }),
    base({ 'event.type': 'nope' }),
    base({ 'event.timestamp': '2025-02-30T00:00:00Z' }),
    base({ 'event.timestamp': 'x' }),
    base({ 'session.id': '' }),
    base({ 'session.id': 5 }),
    base({ 'user.id': 5 }),
    base({ 'user.id': null }),
    base({ metadata: [] }),
    base({ metadata: null }),
    base({ 'api.status_code': 600 }),
    base({ 'api.status_code': 200.5 }),
    base({ 'api.duration_ms': -1 }),
    base({ 'event.sequence': 2 ** 53 }),
    base({ 'ui.state.before': '{' }),
    base({ 'ui.state.after': 3 }),
    base({}, 'x'.repeat(257)),
    base({ big: 'x'.repeat(100 * 1024) }),
    base({ deep: JSON.parse('['.repeat(65) + ']'.repeat(65)) }),
    base({ event_id: undefined }),
  ];
  for (const event of rejected) {
    const b = body(event);
    assert.equal(fastBatch(b, P), undefined, b.toString().slice(0, 200));
    assert.ok(ordinary(b)!.rejections.length > 0 || ordinary(b) === undefined);
  }
  // The limits themselves are taken: 64 levels within a field, 256 characters of id, 100 KB of event.
  assert.equal(agrees(body(base({ deep: JSON.parse('['.repeat(64) + ']'.repeat(64)) }))), true);
  assert.equal(agrees(body(base({}, 'x'.repeat(256)))), true);
  const filler = 100 * 1024 - Buffer.byteLength(JSON.stringify(base({ big: '' })));
  assert.equal(agrees(body(base({ big: 'x'.repeat(filler) }))), true);
  assert.equal(fastBatch(body(base({ big: 'x'.repeat(filler + 1) })), P), undefined);
  // A repeated event_id, and more than 1,000 events.
  assert.equal(fastBatch(body(base({}, 'a'), base({}, 'a')), P), undefined);
  assert.equal(fastBatch(body(...Array.from({ length: 1001 }, (_, i) => base({}, `e${i}`))), P), undefined);
  assert.equal(agrees(body(...Array.from({ length: 1000 }, (_, i) => base({}, `e${i}`)))), true);
});

test('random bodies and random damage to them: whatever is read from the bytes matches the ordinary path', () => {
  let seed = 14;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
  const strings = [
    '',
    'a',
    'é',
    '☕',
    '𝄞',
    'a"b',
    'a\\b',
    'line\nbreak',
    '\t',
    '\u0000',
    '\ud800',
    '{"x":1}',
    '1',
    'page.view',
  ];
  const numbers = [0, 1, -1, 1.5, 1e21, 1e-7, 123456789012345, 2 ** 53, -0, 0.1, 599, 100, 99];
  const value = (depth: number): unknown => {
    switch (rand(depth > 3 ? 4 : 6)) {
      case 0:
        return pick(strings);
      case 1:
        return pick(numbers);
      case 2:
        return pick([true, false, null]);
      case 3:
        return pick(strings) + rand(100);
      case 4:
        return Array.from({ length: rand(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: rand(4) }, () => [
            pick(['a', 'b', '1', 'é', '__proto__', 'event_id']),
            value(depth + 1),
          ]),
        );
    }
  };
  const fields = [
    'user.id',
    'event.sequence',
    'api.status_code',
    'api.duration_ms',
    'ui.state.before',
    'metadata',
    'page.path',
    'other',
    'duration_ms',
  ];
  let taken = 0;
  for (let round = 0; round < 3000; round++) {
    const events = Array.from({ length: 1 + rand(4) }, (_, i) => {
      const e: Record<string, unknown> = base({}, rand(8) === 0 ? 'dup' : `e${round}-${i}`);
      if (rand(10) === 0) e['event.type'] = pick(strings);
      if (rand(10) === 0)
        e['event.timestamp'] = pick([
          '2025-01-02T03:04:05Z',
          '2025-01-02T03:04:05+02:00',
          '2025-13-01T00:00:00Z',
          '2025-01-02',
        ]);
      for (let k = rand(5); k > 0; k--)
        e[pick(fields)] = rand(3) === 0 ? pick(numbers) : rand(2) === 0 ? pick(strings) : value(1);
      return e;
    });
    const text = JSON.stringify({ events });
    if (agrees(Buffer.from(text), text)) taken++;
    // Damage: one byte replaced by a character that matters to JSON, or removed.
    const bytes = Buffer.from(text);
    const at = rand(bytes.length);
    const damaged = rand(3) === 0 ? Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]) : Buffer.from(bytes);
    if (damaged.length === bytes.length) damaged[at] = pick([...'{}[],:"\\ 0-.e5tfn\t'].map((c) => c.charCodeAt(0)));
    agrees(damaged, damaged.toString());
  }
  // Most random batches hold something the fast path leaves alone, but a good share is taken.
  assert.ok(taken > 200, `only ${taken} random batches were read from their bytes`);
});
