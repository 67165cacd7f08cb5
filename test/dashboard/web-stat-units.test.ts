import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statParts } from '../../web/dashboard/src/widgets/stat.ts';
import { queryResult } from './query-result.ts';

/** The single-number widget's text: the value once with its unit, and the column's name only when it adds something. */
test('a unit that names the column is not said twice', () => {
  // `count(*) AS orders` with the unit "orders" showed "50 orders" over "orders".
  assert.deepEqual(statParts(queryResult(['orders'], [{ orders: '50' }]), { unit: 'orders' }), {
    value: '50',
    unit: 'orders',
  });
  assert.deepEqual(statParts(queryResult(['Orders'], [{ Orders: 50 }]), { unit: ' orders ' }), {
    value: '50',
    unit: 'orders',
  });
});

test("a unit other than the column's name keeps the name; no unit, the name alone", () => {
  assert.deepEqual(statParts(queryResult(['revenue'], [{ revenue: 1200 }]), { unit: 'EUR' }), {
    value: new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(1200),
    unit: 'EUR',
    label: 'revenue',
  });
  assert.deepEqual(statParts(queryResult(['n'], [{ n: 7 }]), {}), { value: '7', label: 'n' });
});

test('no row: "No data", without a unit after it', () => {
  assert.deepEqual(statParts(queryResult(['orders'], []), { unit: 'items' }), { value: 'No data', label: 'orders' });
});
