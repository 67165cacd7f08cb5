import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyParameters } from '../../src/ingest/events/committer.ts';
import { validateBatch } from '../../src/ingest/events/validate.ts';
import { eventMessages, MalformedMessageError, preparedFromRows } from '../../src/ingest/log/message.ts';
import { makeEvent } from './helpers.ts';

const prepared = () =>
  validateBatch(
    [
      makeEvent('p1', { event_id: 'a', metadata: { text: 'é ☕ \n' } }),
      makeEvent('p1', { event_id: 'b\nwith a newline' }),
      makeEvent('p1', { event_id: 'c', 'event.timestamp': '2026-01-02T03:04:05.678+02:00' }),
    ],
    'p1',
  ).prepared;

test('one message per event, whose payload is its COPY row: the rows of the messages give back the same COPY input', () => {
  const events = prepared();
  const { payloads, ids } = eventMessages(events);
  assert.equal(payloads.length, 3);
  assert.equal(ids.length, 3);
  const back = preparedFromRows(payloads);
  assert.deepEqual(back, events);
  assert.deepEqual(copyParameters([back], 3), copyParameters([events], 3));
  // Two messages apart, in another order: their rows in the order given.
  const swapped = preparedFromRows([payloads[2]!, payloads[0]!]);
  assert.equal(swapped.count, 2);
  assert.deepEqual(
    eventMessages(swapped).payloads.map((p) => p.toString('base64')),
    [payloads[2]!, payloads[0]!].map((p) => p.toString('base64')),
  );
});

test('the message id is the same for a retried (project, event_id) and differs otherwise, whatever the event_id holds', () => {
  const a = eventMessages(prepared()).ids;
  const b = eventMessages(prepared()).ids;
  assert.deepEqual(a, b);
  assert.equal(new Set(a).size, 3);
  for (const id of a) assert.match(id, /^[A-Za-z0-9_-]{43}$/);
  const other = validateBatch([makeEvent('p2', { event_id: 'a' })], 'p2').prepared;
  assert.notEqual(eventMessages(other).ids[0], a[0]);
});

test('a message that is not an event row is refused by name', () => {
  const [row] = eventMessages(prepared()).payloads;
  const cases: [Buffer, string][] = [
    [Buffer.from('garbage'), 'not a row of 6 fields'],
    [Buffer.alloc(0), 'not a row of 6 fields'],
    [row!.subarray(0, row!.length - 1), 'the row ends early'],
    [Buffer.concat([row!, Buffer.from([0])]), 'bytes after the row'],
  ];
  for (const [payload, message] of cases)
    assert.throws(
      () => preparedFromRows([payload]),
      (err: Error) => err instanceof MalformedMessageError && err.message === message,
    );
});
