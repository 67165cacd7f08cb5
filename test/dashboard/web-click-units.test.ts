import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickColumn, clickedValue, linkFor } from '../../web/dashboard/src/widgets/clickValue.ts';
import { chartOption, PALETTE } from '../../web/dashboard/src/widgets/chartOption.ts';
import { queryResult } from './query-result.ts';

/** A widget's click behaviour in the page: which value a clicked item stands for, and the link made from it. */
describe('clicking a value of a widget', () => {
  const regions = queryResult(
    ['region', 'revenue', 'orders'],
    [
      { region: 'north', revenue: 10, orders: 1 },
      { region: 'south', revenue: 30, orders: 2 },
      { region: null, revenue: 5, orders: 3 },
    ],
  );

  test('a bar, line or scatter item is its row: the category column, or the column the widget names', () => {
    for (const type of ['bar', 'bar_horizontal', 'line', 'area_stacked', 'scatter']) {
      assert.equal(clickedValue(type, regions, {}, { dataIndex: 1 }), 'south', type);
      assert.equal(clickedValue(type, regions, {}, { dataIndex: 0 }, 'orders'), '1', type);
      // NULL is no value a parameter can hold, and a column the rows lack gives none.
      assert.equal(clickedValue(type, regions, {}, { dataIndex: 2 }), undefined, type);
      assert.equal(clickedValue(type, regions, {}, { dataIndex: 0 }, 'country'), undefined, type);
    }
    // The chosen category column (options.x) is the default, as the chart draws it.
    assert.equal(clickedValue('bar', regions, { x: 'orders' }, { dataIndex: 1 }), '2');
    assert.equal(clickColumn('table', regions, { x: 'orders' }), 'region', "a table's first column");
  });

  test("a pie's slice is found by its name; Other stands for several rows and gives nothing", () => {
    assert.equal(clickedValue('pie', regions, {}, { dataIndex: 0, name: 'south', data: { name: 'south' } }), 'south');
    const many = queryResult(
      ['region', 'n'],
      Array.from({ length: 12 }, (_, i) => ({ region: `r${i}`, n: 12 - i })),
    );
    const slices = (
      chartOption('pie', many, {}, { dark: false, reducedMotion: true }).series as { data: unknown[] }[]
    )[0]!.data as { name: string; held?: number }[];
    assert.equal(slices.length, PALETTE.light.length);
    const other = slices.at(-1)!;
    assert.ok(other.held);
    assert.equal(
      clickedValue('pie', many, {}, { dataIndex: slices.length - 1, name: other.name, data: other }),
      undefined,
    );
    assert.equal(clickedValue('pie', many, {}, { dataIndex: 3, name: 'r3', data: slices[3] }), 'r3');
  });

  test('a heatmap cell is the row of its value; rows without a number are no cell', () => {
    const heat = queryResult(
      ['day', 'hour', 'n'],
      [
        { day: 'mon', hour: '9', n: 1 },
        { day: 'mon', hour: '10', n: null },
        { day: 'tue', hour: '9', n: 4 },
      ],
    );
    assert.equal(clickedValue('heatmap', heat, {}, { dataIndex: 1 }), 'tue');
    assert.equal(clickedValue('heatmap', heat, {}, { dataIndex: 1 }, 'hour'), '9');
  });

  test('a link puts the value URL-encoded in place of {value}, and is made only to http(s) or a console path', () => {
    assert.equal(
      linkFor('https://crm.example.com/r/{value}?again={value}', 'a/b c&d'),
      'https://crm.example.com/r/a%2Fb%20c%26d?again=a%2Fb%20c%26d',
    );
    assert.equal(
      linkFor('/dashboards/7?var-region={value}', '//evil.example'),
      '/dashboards/7?var-region=%2F%2Fevil.example',
    );
    assert.equal(linkFor('/{value}', '/evil.example'), '/%2Fevil.example', 'the value cannot make it //host');
    assert.equal(linkFor('javascript:alert({value})', 'x'), undefined);
    assert.equal(linkFor('//evil.example/{value}', 'x'), undefined);
    assert.equal(linkFor('{value}', 'javascript:alert(1)'), undefined);
    assert.equal(linkFor('https://example.com/', 'x'), undefined, 'no {value}: no drill-through');
  });
});
