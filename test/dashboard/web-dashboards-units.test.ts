import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compact,
  describePosition,
  moved,
  newWidgetId,
  nextPosition,
  placed,
  pushDown,
  stepped,
} from '../../web/dashboard/src/dashboards/layout.ts';
import { normalised } from '../../web/dashboard/src/dashboards/definition.ts';
import { queryValues, searchWithValues, valueText } from '../../web/dashboard/src/dashboards/parameters.ts';
import { queryValues as serviceValues } from '../../src/dashboard/dashboards/parameter-values.ts';
import { timeRangeProblem } from '../../src/dashboard/dashboards/time-range.ts';
import { chartOption, PALETTE, TEXT, TIME_LABELS } from '../../web/dashboard/src/widgets/chartOption.ts';
import { nothingToPlot, seriesColumns } from '../../web/dashboard/src/widgets/data.ts';
import { queryResult } from './query-result.ts';

/** The web app's pure parts: grid arithmetic, parameter values, chart options, the definition as saved. */
describe('dashboard web app units', () => {
  const widget = (id: string, x: number, y: number, w: number, h: number) => ({
    id,
    type: 'bar',
    position: { x, y, w, h },
  });

  test('moves and resizes stay on the grid', () => {
    assert.deepEqual(moved({ x: 0, y: 0, w: 6, h: 4 }, 12, { dx: -1, dy: -1 }), { x: 0, y: 0, w: 6, h: 4 });
    assert.deepEqual(
      moved({ x: 6, y: 0, w: 6, h: 4 }, 12, { dx: 1 }),
      { x: 6, y: 0, w: 6, h: 4 },
      'the right edge holds',
    );
    assert.deepEqual(
      moved({ x: 6, y: 0, w: 6, h: 4 }, 12, { dw: 1 }),
      { x: 5, y: 0, w: 7, h: 4 },
      'growing at the edge shifts left',
    );
    assert.deepEqual(
      moved({ x: 0, y: 0, w: 1, h: 1 }, 12, { dw: -1, dh: -1 }),
      { x: 0, y: 0, w: 1, h: 1 },
      'never smaller than 1×1',
    );
    assert.deepEqual(moved({ x: 0, y: 0, w: 12, h: 1 }, 12, { dw: 5 }), { x: 0, y: 0, w: 12, h: 1 });
    assert.equal(describePosition('Sales', { x: 2, y: 0, w: 3, h: 4 }), 'Sales: column 3, row 1, 3 wide, 4 high.');
  });

  test('a new widget takes the first free place of its size', () => {
    assert.deepEqual(nextPosition([], 12), { x: 0, y: 0, w: 6, h: 6 });
    assert.deepEqual(nextPosition([widget('a', 0, 0, 6, 6)], 12), { x: 6, y: 0, w: 6, h: 6 });
    assert.deepEqual(nextPosition([widget('a', 0, 0, 6, 6), widget('b', 6, 0, 6, 6)], 12), { x: 0, y: 6, w: 6, h: 6 });
    assert.deepEqual(nextPosition([widget('a', 0, 0, 12, 2)], 12, 6, 3), { x: 0, y: 2, w: 6, h: 3 });
    assert.deepEqual(nextPosition([], 4), { x: 0, y: 0, w: 4, h: 6 }, 'no wider than the grid');
    assert.equal(newWidgetId([widget('w1', 0, 0, 1, 1), widget('w2', 0, 0, 1, 1)]), 'w3');
    assert.equal(newWidgetId([widget('w2', 0, 0, 1, 1)]), 'w3');
  });

  test('widgets a moved widget covers go down until nothing overlaps; the moved one stays', () => {
    const after = pushDown(
      [
        widget('a', 0, 0, 6, 6),
        widget('b', 4, 2, 6, 6),
        widget('c', 0, 6, 6, 6),
        widget('d', 6, 6, 6, 3),
        widget('e', 0, 30, 2, 2),
      ],
      'b',
    );
    assert.deepEqual(Object.fromEntries(after.map((w) => [w.id, w.position])), {
      a: { x: 0, y: 8, w: 6, h: 6 },
      b: { x: 4, y: 2, w: 6, h: 6 },
      c: { x: 0, y: 14, w: 6, h: 6 },
      d: { x: 6, y: 8, w: 6, h: 3 },
      e: { x: 0, y: 30, w: 2, h: 2 },
    });
    const untouched = [widget('a', 0, 0, 6, 6), widget('b', 6, 0, 6, 6)];
    assert.equal(pushDown(untouched, 'a')[1], untouched[1], 'nothing moves when nothing overlaps');
  });

  /** Every widget touches the top or the bottom of a widget above it in one of its columns: no empty row above it. */
  const gapless = (ws: readonly { position: { x: number; y: number; w: number; h: number } }[]) =>
    ws.every(
      ({ position: p }) =>
        p.y === 0 || ws.some(({ position: o }) => o.y + o.h === p.y && o.x < p.x + p.w && p.x < o.x + o.w),
    );
  const at = (ws: readonly { id: string; position: object }[]) => Object.fromEntries(ws.map((w) => [w.id, w.position]));
  const overlapping = (ws: readonly { position: { x: number; y: number; w: number; h: number } }[]) =>
    ws.some((a, i) =>
      ws.some(
        (b, j) =>
          i < j &&
          a.position.x < b.position.x + b.position.w &&
          b.position.x < a.position.x + a.position.w &&
          a.position.y < b.position.y + b.position.h &&
          b.position.y < a.position.y + a.position.h,
      ),
    );

  test('compaction floats every widget up to the top or the widget above it, in reading order', () => {
    const gappy = [
      widget('a', 0, 3, 6, 2),
      widget('b', 6, 0, 6, 4),
      widget('c', 0, 9, 12, 2),
      widget('d', 2, 20, 3, 1),
    ];
    assert.equal(gapless(gappy), false);
    const after = compact(gappy);
    assert.deepEqual(at(after), {
      a: { x: 0, y: 0, w: 6, h: 2 },
      b: { x: 6, y: 0, w: 6, h: 4 },
      c: { x: 0, y: 4, w: 12, h: 2 },
      d: { x: 2, y: 6, w: 3, h: 1 },
    });
    assert.ok(gapless(after));
    assert.deepEqual(
      after.map((w) => w.id),
      ['a', 'b', 'c', 'd'],
      "the definition's order is kept",
    );
    assert.equal(compact(after)[1], after[1], 'a compacted layout stays as it is');
  });

  test('a dragged widget keeps its place, what it covers goes below it, and the rest closes up', () => {
    // The dashboard the browser tests build: two on top, two below.
    const grid = [
      widget('w1', 0, 0, 6, 6),
      widget('w2', 6, 0, 6, 6),
      widget('w3', 0, 6, 6, 6),
      widget('w4', 6, 6, 6, 3),
    ];
    const dragged = placed(grid, 'w2', { x: 4, y: 2, w: 6, h: 6 });
    assert.deepEqual(at(dragged), {
      w1: { x: 0, y: 6, w: 6, h: 6 },
      w2: { x: 4, y: 0, w: 6, h: 6 },
      w3: { x: 0, y: 12, w: 6, h: 6 },
      w4: { x: 6, y: 6, w: 6, h: 3 },
    });
    assert.ok(gapless(dragged) && !overlapping(dragged));
    const shorter = placed(grid, 'w1', { x: 0, y: 0, w: 6, h: 2 });
    assert.deepEqual(
      shorter.find((w) => w.id === 'w3')!.position,
      { x: 0, y: 2, w: 6, h: 6 },
      'a shrink closes the gap below',
    );
    assert.deepEqual(placed(grid, 'w4', { x: 6, y: 6, w: 6, h: 3 }), grid, 'nothing moves when nothing changes');
  });

  test('keyboard steps: down passes the widget below, up the widget above, never leaving a gap', () => {
    const grid = [widget('a', 0, 0, 6, 4), widget('b', 6, 0, 6, 2), widget('c', 0, 4, 6, 3), widget('d', 6, 2, 6, 2)];
    const down = stepped(grid, 'a', 12, { dy: 1 });
    assert.deepEqual(at(down), {
      a: { x: 0, y: 3, w: 6, h: 4 },
      b: { x: 6, y: 0, w: 6, h: 2 },
      c: { x: 0, y: 0, w: 6, h: 3 },
      d: { x: 6, y: 2, w: 6, h: 2 },
    });
    assert.deepEqual(stepped(down, 'a', 12, { dy: 1 }), down, 'at the bottom of its columns a step down does nothing');
    assert.deepEqual(at(stepped(down, 'a', 12, { dy: -1 })), at(grid), 'a step up passes back');
    assert.deepEqual(stepped(grid, 'a', 12, { dy: -1 }), grid, 'at the top a step up does nothing');
    // A full-width widget stepping up goes above the nearest widget over it, and so above its row.
    const wide = [widget('x', 0, 0, 6, 2), widget('y', 6, 0, 6, 5), widget('z', 0, 5, 12, 2)];
    const up = stepped(wide, 'z', 12, { dy: -1 });
    assert.deepEqual(at(up).z, { x: 0, y: 0, w: 12, h: 2 });
    assert.ok(gapless(up) && !overlapping(up));
    // Sideways into a neighbour pushes it down.
    const right = stepped(grid, 'a', 12, { dx: 1 });
    assert.deepEqual(at(right).a, { x: 1, y: 0, w: 6, h: 4 });
    assert.ok(gapless(right) && !overlapping(right));
    const grown = stepped(grid, 'b', 12, { dh: 3 });
    assert.deepEqual(at(grown).d, { x: 6, y: 5, w: 6, h: 2 }, 'growing pushes the widget below down, no gap');
    for (let i = 0; i < 200; i++) {
      // Any sequence of steps keeps the grid without gaps or overlaps.
      const ids = ['a', 'b', 'c', 'd'];
      const changes = [{ dx: 1 }, { dx: -1 }, { dy: 1 }, { dy: -1 }, { dw: 1 }, { dw: -1 }, { dh: 1 }, { dh: -1 }];
      let g = grid;
      for (let k = 0; k < 20; k++) g = stepped(g, ids[(i * 7 + k * 3) % 4]!, 12, changes[(i + k * 5) % 8]!);
      assert.ok(gapless(g) && !overlapping(g), JSON.stringify(at(g)));
    }
  });

  test('a time range becomes _from and _to instants; text and choices pass as they are', () => {
    const now = Date.parse('2026-01-02T03:00:00Z');
    const values = queryValues(
      [
        { name: 'range', type: 'time_range' },
        { name: 'kind', type: 'choice', choices: ['a', 'b'] },
        { name: 'q', type: 'text', default: 'x' },
      ],
      { range: '1h' },
      now,
    );
    assert.deepEqual(values, {
      range_from: '2026-01-02T02:00:00.000Z',
      range_to: '2026-01-02T03:00:00.000Z',
      kind: 'a',
      q: 'x',
    });
    assert.equal(
      queryValues([{ name: 'r', type: 'time_range', default: '7d' }], {}, now).r_from,
      '2025-12-26T03:00:00.000Z',
    );
  });

  test('an absolute range passes as it is, in the page as in the service; an inverted one is refused', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const range = '2026-01-05T00:00:00Z/2026-01-15T01:00:00+01:00';
    const want = { r_from: '2026-01-05T00:00:00.000Z', r_to: '2026-01-15T00:00:00.000Z' };
    assert.deepEqual(queryValues([{ name: 'r', type: 'time_range' }], { r: range }, now), want);
    assert.deepEqual(serviceValues([{ name: 'r', type: 'time_range' }], { r: range }, now), want);
    assert.equal(timeRangeProblem(range), undefined);
    assert.equal(timeRangeProblem('7d'), undefined);
    assert.match(timeRangeProblem('2026-01-15T00:00:00Z/2026-01-05T00:00:00Z')!, /starts before it ends/);
    assert.match(timeRangeProblem('2026-01-05T00:00:00/2026-01-15T00:00:00')!, /with their zone/);
    assert.equal(
      searchWithValues('?edit&var-old=1', { r: range }),
      `?edit=&var-r=${encodeURIComponent(range)}`,
      'other keys kept, parameters replaced',
    );
  });

  test("a picture's values in words: a preset with the minutes it covered and the zone, an absolute range, text as it is", () => {
    const now = Date.parse('2026-01-02T03:00:00Z');
    const utc = { locale: 'en-GB', timeZone: 'UTC' };
    const range = { name: 'r', type: 'time_range' as const };
    // ICU puts thin and narrow spaces around the dash: any space reads the same here.
    const words = (...a: Parameters<typeof valueText>) => valueText(...a).replace(/\s/g, ' ');
    assert.equal(words(range, '7d', now, utc), 'Last 7 days: 26 Dec 2025, 03:00 – 2 Jan 2026, 03:00 (UTC)');
    assert.equal(
      words(range, '2026-01-05T00:00:00Z/2026-01-15T12:30:00Z', now, { locale: 'en-GB', timeZone: 'Europe/Paris' }),
      '5 Jan 2026, 01:00 – 15 Jan 2026, 13:30 (Europe/Paris)',
    );
    assert.equal(words(range, 'nonsense', now, utc), 'Last 24 hours: 1 Jan 2026, 03:00 – 2 Jan 2026, 03:00 (UTC)');
    assert.equal(words({ name: 'q', type: 'text' }, 'north', now, utc), 'north');
    assert.equal(words({ name: 'q', type: 'text' }, '', now, utc), '(empty)');
  });

  test('a heatmap: x across, the text column down, the value as colour with its scale', () => {
    const r = {
      columns: ['hour', 'weekday', 'hits'],
      rows: [
        { hour: '08:00', weekday: 'Mon', hits: 3 },
        { hour: '09:00', weekday: 'Mon', hits: 9 },
        { hour: '08:00', weekday: 'Tue', hits: null },
      ],
    } as unknown as Parameters<typeof chartOption>[1];
    const o = chartOption('heatmap', r, {}, { dark: false, reducedMotion: true }) as any;
    assert.deepEqual(o.xAxis.data, ['08:00', '09:00']);
    assert.deepEqual(o.yAxis.data, ['Mon', 'Tue']);
    assert.deepEqual(o.series[0].data, [
      [0, 0, 3],
      [1, 0, 9],
    ]);
    assert.equal(o.visualMap.max, 9);
    assert.equal(nothingToPlot(r, {}, 'heatmap'), undefined);
    const two = { columns: ['hour', 'hits'], rows: [{ hour: '08:00', hits: 1 }] } as unknown as typeof r;
    assert.match(nothingToPlot(two, {}, 'heatmap')!, /a heatmap needs three columns/);
  });

  test('chart options: value columns are the numeric ones, time on a time axis, no animation when motion is reduced', () => {
    const result = {
      columns: ['day', 'orders', 'note'],
      rows: [
        { day: '2026-01-01T00:00:00Z', orders: '3', note: 'x' },
        { day: '2026-01-02T00:00:00Z', orders: 5, note: 'y' },
      ],
      rowCount: 2,
      executionTimeMs: 1,
      truncated: false,
    };
    assert.deepEqual(seriesColumns(result, {}), { x: 'day', y: ['orders'] });
    assert.deepEqual(seriesColumns(result, { x: 'note', y: ['orders', 'missing'] }), { x: 'note', y: ['orders'] });
    const line = chartOption('line', result, {}, { dark: false, reducedMotion: true }) as any;
    assert.equal(line.animation, false);
    assert.equal(line.xAxis.type, 'time');
    assert.deepEqual(line.series[0].data, [
      ['2026-01-01T00:00:00Z', 3],
      ['2026-01-02T00:00:00Z', 5],
    ]);
    const bar = chartOption('bar', result, { x: 'note' }, { dark: true, reducedMotion: false }) as any;
    assert.equal(bar.animation, true);
    assert.deepEqual(bar.xAxis.data, ['x', 'y']);
    assert.equal(bar.textStyle.color, '#e8eaed');
    const pie = chartOption('pie', result, { x: 'note' }, { dark: false, reducedMotion: true }) as any;
    assert.deepEqual(pie.series[0].data, [
      { name: 'x', value: 3 },
      { name: 'y', value: 5 },
    ]);
    // On a phone the ring shrinks so the slices' names fit beside it (the full ring left them "regi…" at 320 px).
    const narrow = pie.media.find((m: any) => m.query?.maxWidth >= 300 && m.query?.maxWidth < 400)?.option.series[0];
    assert.ok(narrow, 'a rule for narrow charts');
    assert.ok(Number.parseFloat(narrow.radius[1]) < Number.parseFloat(pie.series[0].radius[1]), 'a smaller ring');
    // And the ring a chart grows back to: ECharts keeps a matched rule's values until another rule sets them again.
    const wide = pie.media.find((m: any) => !m.query)?.option.series[0];
    assert.deepEqual(wide?.radius, pie.series[0].radius, 'the full ring again once wider');
    // A day on the time axis names its month ("Nov 5", not ECharts' bare "5").
    assert.equal(line.xAxis.axisLabel.formatter, TIME_LABELS);
    const midnight = new Date(2026, 10, 5).getTime();
    assert.equal(
      TIME_LABELS(midnight),
      new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }).format(midnight),
    );
  });

  test('a chart with nothing to draw says why instead of showing an empty canvas', () => {
    assert.equal(nothingToPlot(queryResult(['region', 'total'], []), {}), 'the query returned no rows.');
    assert.match(nothingToPlot(queryResult(['value'], [{ value: 1 }]), {})!, /only "value", which is the category/);
    assert.match(
      nothingToPlot(queryResult(['region', 'note'], [{ region: 'n', note: 'x' }]), {})!,
      /no column besides "region" holds numbers/,
    );
    assert.equal(nothingToPlot(queryResult(['region', 'total'], [{ region: 'n', total: '12.5' }]), {}), undefined);
    assert.equal(
      nothingToPlot(queryResult(['value', 'label'], [{ value: 1, label: 'a' }]), { x: 'label' }),
      undefined,
      'the chosen category leaves a value column',
    );
  });

  test("chart colours have at least 3:1 contrast against the theme's background, text 4.5:1 (WCAG 1.4.11, 1.4.3)", () => {
    // The backgrounds of styles.css (--bg) in the light and dark themes.
    const background = { light: '#ffffff', dark: '#121417' };
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5]
        .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const contrast = (a: string, b: string) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    };
    for (const theme of ['light', 'dark'] as const) {
      for (const colour of PALETTE[theme])
        assert.ok(
          contrast(colour, background[theme]) >= 3,
          `${theme} ${colour}: ${contrast(colour, background[theme]).toFixed(2)}`,
        );
      assert.ok(contrast(TEXT[theme], background[theme]) >= 4.5, `${theme} text`);
    }
  });

  test('the saved definition lists exactly the sources its SQL widgets use', () => {
    const d = normalised({
      layout: { type: 'grid', columns: 12, rowHeight: 40 },
      dataSources: [{ id: 1, alias: 'main' }, { id: 9 }],
      widgets: [
        { id: 'a', type: 'bar', position: { x: 0, y: 0, w: 1, h: 1 }, dataSourceId: 1, query: 'SELECT 1' },
        { id: 'b', type: 'bar', position: { x: 0, y: 0, w: 1, h: 1 }, dataSourceId: 2, query: 'SELECT 2' },
        { id: 'c', type: 'pie', position: { x: 0, y: 0, w: 1, h: 1 }, savedQueryId: 4 },
        { id: 'd', type: 'text', position: { x: 0, y: 0, w: 1, h: 1 }, options: { markdown: 'hi' } },
      ],
    });
    assert.deepEqual(d.dataSources, [{ id: 1, alias: 'main' }, { id: 2 }]);
  });
});
