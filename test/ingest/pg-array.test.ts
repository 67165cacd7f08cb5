import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import {
  binaryArray,
  decodeElements,
  decodeTimestamps,
  encodeElements,
  encodeTimestamps,
  JSON_OID,
  repeatElement,
  TEXT_OID,
  TIMESTAMPTZ_OID,
} from '../../src/ingest/events/pg-array.ts';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';

const STRINGS = [
  'a',
  '',
  'Example Shop — fast shoes for everyone',
  'emoji 🥾 and "quotes", commas, {braces} \\ back',
  'x'.repeat(70_000),
];
const INSTANTS = [
  '1000-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1999-12-31T23:59:59.999Z',
  '2000-01-01T00:00:00.000Z',
  '2025-03-04T10:00:00.137Z',
  '9999-12-31T23:59:59.999Z',
].map((s) => Date.parse(s));

test('elements and instants come back as they went in', () => {
  assert.deepEqual(decodeElements(encodeElements(STRINGS)), STRINGS);
  assert.deepEqual(decodeElements(repeatElement('proj_é', 3)), ['proj_é', 'proj_é', 'proj_é']);
  assert.deepEqual(decodeTimestamps(encodeTimestamps(INSTANTS)), INSTANTS);
});

// Read-only statements on the test server's own database: nothing is created, so no fresh database is needed.
test('PostgreSQL reads the binary arrays as the same texts, json values and instants', async () => {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    const texts = await client.query<{ v: string }>('SELECT unnest($1::text[]) AS v', [
      binaryArray(TEXT_OID, STRINGS.length, [encodeElements(STRINGS)]),
    ]);
    assert.deepEqual(
      texts.rows.map((r) => r.v),
      STRINGS,
    );

    const docs = [{ a: 1, 'b.c': 'é' }, [1, 'two'], { z: null, a: { deep: true } }].map((d) => JSON.stringify(d));
    const json = await client.query<{ v: string }>('SELECT unnest($1::json[])::text AS v', [
      binaryArray(JSON_OID, docs.length, [encodeElements(docs)]),
    ]);
    assert.deepEqual(
      json.rows.map((r) => r.v),
      docs,
      'json keeps the text as sent',
    );

    // Two pieces, as a group commit joins requests.
    const pieces = [encodeTimestamps(INSTANTS.slice(0, 2)), encodeTimestamps(INSTANTS.slice(2))];
    const times = await client.query<{ v: string }>(
      `SELECT to_char(unnest($1::timestamptz[]) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS v`,
      [binaryArray(TIMESTAMPTZ_OID, INSTANTS.length, pieces)],
    );
    assert.deepEqual(
      times.rows.map((r) => r.v),
      INSTANTS.map((ms) => new Date(ms).toISOString()),
    );

    await assert.rejects(
      client.query('SELECT unnest($1::json[])', [binaryArray(JSON_OID, 1, [encodeElements(['{"a":'])])]),
      /invalid input syntax for type json/,
    );
  } finally {
    await client.end();
  }
});
