import { test } from 'node:test';
import assert from 'node:assert/strict';
import Papa from 'papaparse';
import { csvName, resultCsv } from '../../web/dashboard/src/app/csv.ts';
import { slugify } from '../../web/dashboard/src/app/slug.ts';

test('a result as CSV: header, RFC 4180 quoting, NULL empty, JSON as text, formulas defused', () => {
  const csv = resultCsv({
    columns: ['name', 'note', 'amount', 'meta', 'formula'],
    rows: [
      {
        name: 'Zoë, "the" first',
        note: 'two\nlines',
        amount: '12.50',
        meta: { a: [1, 2] },
        formula: '=HYPERLINK("http://evil.example")',
      },
      { name: 'plain', note: null, amount: 7, meta: null, formula: '@SUM(A1)' },
      { name: '-5', note: '+1', amount: -3, meta: [true], formula: 'fine' },
    ],
    rowCount: 3,
    executionTimeMs: 1,
    truncated: false,
  });
  assert.equal(csv.split('\r\n')[0], 'name,note,amount,meta,formula');
  const parsed = Papa.parse<string[]>(csv, { newline: '\r\n' }).data;
  assert.deepEqual(parsed, [
    ['name', 'note', 'amount', 'meta', 'formula'],
    ['Zoë, "the" first', 'two\nlines', '12.50', '{"a":[1,2]}', '\'=HYPERLINK("http://evil.example")'],
    ['plain', '', '7', '', "'@SUM(A1)"],
    ["'-5", "'+1", '-3', '[true]', 'fine'],
  ]);
});

test('CSV file names come from the title, with the date', () => {
  assert.match(csvName('Sales by région / 2026'), /^sales-by-region-2026-\d{4}-\d{2}-\d{2}\.csv$/);
  assert.match(csvName('***'), /^results-\d{4}-\d{2}-\d{2}\.csv$/);
});

test('slugs drop accents with their marks, and fall back when nothing is left', () => {
  assert.equal(slugify('Régions du Nord', 'dashboard'), 'regions-du-nord');
  assert.equal(slugify('  Ça   marche!  ', 'dashboard'), 'ca-marche');
  assert.equal(slugify('日本', 'dashboard'), 'dashboard');
  assert.equal(slugify('a'.repeat(79) + ' bc', 'x', 80), 'a'.repeat(79), 'no hyphen left at the cut');
});
