import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeElements } from '../../src/ingest/events/pg-array.ts';
import { validateBatch, validateEvent } from '../../src/ingest/events/validate.ts';
import { parseIsoTimestamp } from '../../src/ingest/events/timestamp.ts';
import { EVENT_TYPES, OPTIONAL_FIELDS, REQUIRED_FIELDS } from '../../src/ingest/events/fields.ts';

const P = 'proj-a';
const valid = (overrides: Record<string, unknown> = {}) => ({
  event_id: 'e-1',
  project_id: P,
  'session.id': 's-1',
  'event.type': 'page.view',
  'event.timestamp': '2025-01-02T03:04:05Z',
  ...overrides,
});
const errorOf = (event: unknown) => {
  const outcome = validateEvent(event, P);
  return 'error' in outcome ? outcome.error : undefined;
};

test('a minimal valid event passes and keeps unknown fields in its stored body', () => {
  const outcome = validateEvent(valid({ 'x.custom': { deep: [1, 2] }, another: 'kept' }), P);
  assert.ok('body' in outcome);
  assert.deepEqual(JSON.parse(outcome.body), valid({ 'x.custom': { deep: [1, 2] }, another: 'kept' }));
  assert.equal(new Date(outcome.ms).toISOString(), '2025-01-02T03:04:05.000Z');
});

test('every required field missing in turn is reported as "<field>: required"', () => {
  for (const field of REQUIRED_FIELDS) {
    const event: Record<string, unknown> = valid();
    delete event[field];
    assert.equal(errorOf(event), `${field}: required`, field);
  }
  assert.deepEqual([...REQUIRED_FIELDS], ['event_id', 'project_id', 'session.id', 'event.type', 'event.timestamp']);
});

test('required fields of the wrong type or empty are rejected', () => {
  for (const field of REQUIRED_FIELDS) {
    for (const bad of [42, true, null, ['x'], { v: 1 }])
      assert.equal(errorOf(valid({ [field]: bad })), `${field}: must be a string`, `${field}=${JSON.stringify(bad)}`);
    assert.equal(errorOf(valid({ [field]: '' })), `${field}: must not be empty`);
  }
  assert.equal(errorOf(valid({ event_id: 'x'.repeat(257) })), 'event_id: must be at most 256 characters');
});

test('nested objects are not dotted fields: {"event":{"type":...}} does not provide event.type', () => {
  const event: Record<string, unknown> = valid();
  delete event['event.type'];
  event.event = { type: 'page.view' };
  assert.equal(errorOf(event), 'event.type: required');
});

test('event.type must be one of the fifteen values', () => {
  assert.equal(EVENT_TYPES.size, 15);
  for (const type of EVENT_TYPES) assert.equal(errorOf(valid({ 'event.type': type })), undefined, type);
  for (const bad of ['click', 'Page.View', 'page.view ', 'performance.vitals'])
    assert.match(errorOf(valid({ 'event.type': bad }))!, /^event\.type: must be one of page\.view, /);
});

test('event.timestamp must be a real ISO 8601 date-time with a time zone', () => {
  for (const ok of [
    '2025-01-02T03:04:05Z',
    '2025-01-02T03:04:05.123456Z',
    '2025-01-02T03:04:05+02:00',
    '2025-01-02T03:04:05-0530',
    '2025-01-02T03:04Z',
    '2025-01-02t03:04:05z',
    '2024-02-29T00:00:00,5+01',
    '2025-12-31T23:59:59.999Z',
  ]) {
    assert.equal(errorOf(valid({ 'event.timestamp': ok })), undefined, ok);
  }
  for (const bad of [
    '2025-01-02',
    '2025-01-02T03:04:05',
    'yesterday',
    '1735787045',
    '2025-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-01-02T24:00:00Z',
    '2025-01-02T23:60:00Z',
    '2025-01-02T23:59:60Z',
    '2025-01-02T03:04:05+25:00',
    '2025-01-02 03:04:05Z',
    'Thu, 02 Jan 2025 03:04:05 GMT',
    '0099-01-01T00:00:00Z',
    '9999-12-31T23:59:59-00:01',
    '9999-12-31T23:00:00-23:59',
    '',
  ]) {
    const error = errorOf(valid({ 'event.timestamp': bad }));
    assert.ok(
      error === 'event.timestamp: must be an ISO 8601 date-time with a time zone' ||
        (bad === '' && error === 'event.timestamp: must not be empty'),
      `${bad}: ${error}`,
    );
  }
  assert.equal(parseIsoTimestamp('2025-01-02T03:04:05+02:00'), Date.UTC(2025, 0, 2, 1, 4, 5));
  assert.equal(parseIsoTimestamp('2025-01-02T03:04:05.5-01:30'), Date.UTC(2025, 0, 2, 4, 34, 5, 500));
  // The last instant of year 9999 in UTC is the latest accepted: a later one has no four-digit year for the event_ts column.
  assert.equal(parseIsoTimestamp('9999-12-31T23:59:59.999Z'), Date.UTC(9999, 11, 31, 23, 59, 59, 999));
  assert.equal(parseIsoTimestamp('1000-01-01T00:00:00+01:00'), Date.UTC(999, 11, 31, 23, 0, 0));
});

test('project_id must be the project of the API key', () => {
  assert.equal(errorOf(valid({ project_id: 'proj-b' })), 'project_id: does not match the project of the API key');
});

test('every optional field is checked against its type', () => {
  const stringFields = OPTIONAL_FIELDS.filter(([, k]) => k === 'string').map(([f]) => f);
  assert.ok(
    stringFields.includes('user.id') &&
      stringFields.includes('ui.element.text') &&
      stringFields.includes('gen_ai.journey.step.name'),
  );
  for (const field of stringFields) {
    assert.equal(errorOf(valid({ [field]: 'text' })), undefined, field);
    assert.equal(errorOf(valid({ [field]: 5 })), `${field}: must be a string`, field);
    assert.equal(errorOf(valid({ [field]: null })), `${field}: must be a string`, field);
  }
  for (const field of ['event.sequence', 'api.duration_ms', 'duration_ms']) {
    assert.equal(errorOf(valid({ [field]: 12 })), undefined, field);
    assert.equal(errorOf(valid({ [field]: 1.5 })), `${field}: must be an integer`);
    assert.equal(errorOf(valid({ [field]: '12' })), `${field}: must be an integer`);
    assert.equal(errorOf(valid({ [field]: -1 })), `${field}: must be an integer of at least 0`);
  }
  assert.equal(errorOf(valid({ 'api.status_code': 204 })), undefined);
  assert.equal(errorOf(valid({ 'api.status_code': '200' })), 'api.status_code: must be an integer');
  assert.equal(errorOf(valid({ 'api.status_code': 700 })), 'api.status_code: must be an integer from 100 to 599');
  for (const field of ['ui.state.before', 'ui.state.after']) {
    assert.equal(errorOf(valid({ [field]: '{"open":true}' })), undefined);
    assert.equal(errorOf(valid({ [field]: { open: true } })), `${field}: must be a string`);
    assert.equal(errorOf(valid({ [field]: '{open' })), `${field}: must be a string holding JSON`);
  }
});

test('metadata must be an object', () => {
  assert.equal(errorOf(valid({ metadata: { a: 1, nested: { b: [true] } } })), undefined);
  for (const bad of [[1, 2], 'x', 3, null, true])
    assert.equal(errorOf(valid({ metadata: bad })), 'metadata: must be an object', JSON.stringify(bad));
});

test('nesting is limited to 64 levels below a field, counted in objects and arrays', () => {
  const nest = (levels: number): unknown =>
    levels === 0 ? 'leaf' : levels % 2 ? [nest(levels - 1)] : { k: nest(levels - 1) };
  assert.equal(errorOf(valid({ metadata: nest(64) as object })), undefined);
  assert.equal(errorOf(valid({ metadata: { a: nest(63) } })), undefined);
  assert.equal(errorOf(valid({ metadata: { a: nest(64) } })), 'metadata: must not be nested more than 64 levels deep');
  assert.equal(errorOf(valid({ 'x.unknown': nest(65) })), 'x.unknown: must not be nested more than 64 levels deep');
  const { rejections } = validateBatch(
    [valid({ 'x.unknown': JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) })],
    P,
  );
  assert.deepEqual(
    rejections.map((r) => r.reason),
    ['too_deep'],
  );
});

test('an event must be an object', () => {
  for (const bad of [null, 'e', 1, [valid()]]) assert.equal(errorOf(bad), 'event: must be an object');
});

test('the serialized event is at most 100 KB, counted in UTF-8 bytes', () => {
  const base = JSON.stringify(valid({ 'error.stack': '' })).length;
  assert.equal(errorOf(valid({ 'error.stack': 'x'.repeat(100 * 1024 - base) })), undefined);
  assert.match(
    errorOf(valid({ 'error.stack': 'x'.repeat(100 * 1024 - base + 1) }))!,
    /^event: must be at most 100 KB serialized \(got 102401 bytes\)$/,
  );
  // 40,000 three-byte characters: 40 K string length but 120 KB on the wire.
  assert.match(errorOf(valid({ 'error.message': '€'.repeat(40_000) }))!, /^event: must be at most 100 KB/);
});

test('NUL characters and unpaired surrogates, which PostgreSQL cannot store, are rejected naming the field', () => {
  assert.equal(
    errorOf(valid({ 'page.title': 'a\u0000b' })),
    'page.title: contains a NUL character or an unpaired surrogate, which cannot be stored',
  );
  assert.equal(
    errorOf(valid({ metadata: { x: 'bad \ud800 half' } })),
    'metadata: contains a NUL character or an unpaired surrogate, which cannot be stored',
  );
  assert.equal(
    errorOf(valid({ 'bad\u0000key': 1 })),
    'event: contains a NUL character or an unpaired surrogate, which cannot be stored',
  );
  // A literal backslash-u text and a proper surrogate pair are fine.
  assert.equal(errorOf(valid({ 'page.title': 'C:\\u0000 and 😀' })), undefined);
});

test('a batch: rejected events carry their index, the first of repeated event_ids wins', () => {
  const { prepared, rejections } = validateBatch(
    [
      valid({ event_id: 'a' }),
      valid({ event_id: 'b', 'event.type': 'nope' }),
      valid({ event_id: 'a' }),
      valid({ event_id: 'b' }),
      valid({ event_id: 'c', project_id: 'other' }),
    ],
    P,
  );
  assert.equal(prepared.count, 2);
  assert.deepEqual(
    decodeElements(prepared.bodies)
      .map((b) => JSON.parse(b))
      .map((e: { event_id: string }) => e.event_id),
    ['a', 'b'],
  );
  assert.deepEqual(
    rejections.map((r) => [r.index, r.reason]),
    [
      [1, 'event_type'],
      [2, 'duplicate_in_batch'],
      [4, 'project_mismatch'],
    ],
  );
  assert.equal(rejections[1]!.error, 'event_id: repeated within the batch (first at index 0)');
});

test('timestamps in toISOString form (read without the expression) parse as the same instant written with +00:00', () => {
  const samples = [
    '2025-01-02T03:04:05.123Z',
    '2024-02-29T23:59:59.999Z',
    '2023-02-29T00:00:00.000Z',
    '2025-13-01T00:00:00.000Z',
    '2025-00-10T00:00:00.000Z',
    '2025-04-31T00:00:00.000Z',
    '2025-01-00T00:00:00.000Z',
    '2025-01-02T24:00:00.000Z',
    '2025-01-02T23:60:00.000Z',
    '2025-01-02T23:59:60.000Z',
    '0999-12-31T23:59:59.999Z',
    '1000-01-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
    '1900-02-29T00:00:00.000Z',
    '2000-02-29T00:00:00.000Z',
  ];
  let seed = 11;
  const digit = () => {
    seed = (seed * 48271) % 2147483647;
    return String(seed % 10);
  };
  for (let i = 0; i < 2000; i++) samples.push('DDDD-DD-DDTDD:DD:DD.DDDZ'.replace(/D/g, digit));
  for (const s of samples) assert.equal(parseIsoTimestamp(s), parseIsoTimestamp(s.replace('Z', '+00:00')), s);
  for (const other of [
    '2025-01-02T03:04:05.123z',
    '2025-01-02t03:04:05.123Z',
    '2025-01-02T03:04:05,123Z',
    '2025-01-02T03:04:05.1a3Z',
    '+02025-01-02T03:04:05.123Z'.slice(1, 25),
    '2025-01-02T03:04:05.123+',
  ]) {
    assert.equal(parseIsoTimestamp(other), PATTERN_RESULT(other), other);
  }
  assert.equal(parseIsoTimestamp('2025-01-02T03:04:05.123Z'), Date.UTC(2025, 0, 2, 3, 4, 5, 123));
});

/** What the expression alone gives: the ones that pass it are the ISO forms the fast path leaves to it. */
function PATTERN_RESULT(s: string): number | undefined {
  return /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}[.,]\d{3}[Zz]$/.test(s)
    ? Date.parse(s.replace(',', '.').toUpperCase())
    : undefined;
}
