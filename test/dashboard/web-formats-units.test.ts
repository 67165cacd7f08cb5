import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chartOption, PALETTE } from '../../web/dashboard/src/widgets/chartOption.ts';
import { formatValue } from '../../web/dashboard/src/widgets/format.ts';
import { legendEntries } from '../../web/dashboard/src/widgets/legendEntries.ts';
import { TIME_LABELS } from '../../web/dashboard/src/widgets/chartOption.ts';
import { scoreOption } from '../../web/dashboard/src/audits/runs/trendOption.ts';
import {
  formatDate,
  formatDateTime,
  formatInstant,
  timeAxisLabel,
  timePointLabel,
} from '../../web/dashboard/src/app/datetime.ts';
import { valueText } from '../../web/dashboard/src/dashboards/parameters.ts';
import { queryResult } from './query-result.ts';

/** Value formats and the second axis (issue 28): the web app's pure parts. */
describe('value formats', () => {
  test('numbers, percent, currency, bytes and durations', () => {
    assert.equal(
      formatValue(1234.567, 'number'),
      new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(1234.567),
    );
    assert.equal(formatValue(0.25, 'percent'), new Intl.NumberFormat(undefined, { style: 'percent' }).format(0.25));
    assert.match(formatValue('19.5', 'currency', { currency: 'EUR' }), /€/);
    assert.match(formatValue(19.5, 'currency', { currency: 'nope' }), /\$/, 'an unknown code falls back to USD');
    assert.equal(formatValue(512, 'bytes'), '512 B');
    assert.equal(formatValue(1536, 'bytes'), '1.5 KiB');
    assert.equal(formatValue(5 * 1024 ** 3, 'bytes'), '5 GiB');
    assert.equal(formatValue(0.25, 'duration'), '250 ms');
    assert.equal(formatValue(42, 'duration'), '42 s');
    assert.equal(formatValue(3725, 'duration'), '1 h 2 min');
    assert.equal(formatValue(90_061, 'duration'), '1 d 1 h');
    assert.equal(formatValue(null, 'currency'), 'NULL');
    assert.equal(formatValue('n/a', 'bytes'), 'n/a', 'text in a number column is shown as it is');
  });

  test("dates in the viewer's zone or the one chosen", () => {
    const at = '2026-03-01T12:00:00Z';
    assert.match(formatValue(at, 'datetime', { timeZone: 'Asia/Tokyo' }), /9:00\s?PM/);
    assert.match(formatValue(at, 'datetime', { timeZone: 'America/New_York' }), /7:00\s?AM/);
    assert.match(
      formatValue(at, 'date', { timeZone: 'Pacific/Kiritimati' }),
      /Mar 2, 2026/,
      'already the next day there',
    );
    assert.doesNotThrow(() => formatValue(at, 'date', { timeZone: 'Not/AZone' }));
    assert.equal(formatValue('not a date', 'date'), 'not a date');
  });

  test('a second value axis on the right for the columns named, and the format on the axes', () => {
    const r = {
      columns: ['region', 'amount', 'refunds'],
      rows: [
        { region: 'north', amount: 120, refunds: 10 },
        { region: 'south', amount: 90, refunds: 25 },
      ],
      rowCount: 2,
      executionTimeMs: 1,
      truncated: false,
    };
    const option = chartOption('bar', r, { y2: ['refunds'], format: 'percent' }, { dark: false, reducedMotion: true });
    const axes = option.yAxis as { position?: string; axisLabel: { formatter?: (v: number) => string } }[];
    assert.equal(axes.length, 2);
    assert.equal(axes[1]!.position, 'right');
    assert.equal(axes[0]!.axisLabel.formatter!(0.5), formatValue(0.5, 'percent'));
    const series = option.series as { name: string; yAxisIndex?: number }[];
    assert.deepEqual(
      series.map((s) => [s.name, s.yAxisIndex ?? 0]),
      [
        ['amount', 0],
        ['refunds', 1],
      ],
    );
    const single = chartOption('bar', r, {}, { dark: false, reducedMotion: true });
    assert.ok(!Array.isArray(single.yAxis), 'one axis unless asked');
  });

  test("a time chart's tooltip heads its points as the tables write moments, not ECharts' 24-hour default", () => {
    const at = new Date(2026, 2, 1, 15, 5);
    const r = {
      columns: ['at', 'n'],
      rows: [
        { at: new Date(2026, 2, 1, 15, 0).toISOString(), n: 1 },
        { at: at.toISOString(), n: 2 },
      ],
      rowCount: 2,
      executionTimeMs: 1,
      truncated: false,
    };
    const option = chartOption('line', r, {}, { dark: false, reducedMotion: true });
    const axis = option.xAxis as {
      type: string;
      axisPointer?: { label?: { formatter?: (p: { value: number }) => string } };
    };
    assert.equal(axis.type, 'time');
    const heading = axis.axisPointer?.label?.formatter;
    assert.ok(heading, 'the time axis names its tooltip heading');
    assert.equal(heading({ value: at.getTime() }), formatDateTime(at));
    // The audit's score trend is a time chart too.
    const trend = scoreOption([], { dark: false, reducedMotion: true }).xAxis as typeof axis;
    assert.equal(trend.axisPointer?.label?.formatter?.({ value: at.getTime() }), formatDateTime(at));
    assert.equal(timePointLabel(new Date(2026, 2, 1, 15, 5, 9)), formatInstant(new Date(2026, 2, 1, 15, 5, 9)));
    assert.equal(timePointLabel(new Date(2026, 2, 1)), formatDate(new Date(2026, 2, 1)), 'a midnight is its day');
    assert.match(timePointLabel(at.getTime(), { locale: 'en-US' }), /^Mar 1, 2026, 3:05\sPM$/);
    assert.equal(timePointLabel(at.getTime(), { locale: 'en-GB' }), '1 Mar 2026, 15:05');
  });

  test('one style of date and time: charts keep the hour cycle of tables, in any locale', () => {
    // 15:05 in the test's own zone, as a chart's hour tick and a table's cell both show it.
    const at = new Date(2026, 2, 1, 15, 5).getTime();
    const hour = new Date(2026, 2, 1, 15, 0).getTime();
    const twelveHour = (text: string) => /[AP]M/.test(text);
    assert.equal(
      twelveHour(TIME_LABELS(hour)),
      twelveHour(formatDateTime(at)),
      `${TIME_LABELS(hour)} / ${formatDateTime(at)}`,
    );
    for (const locale of ['en-US', 'en-GB', 'de-DE']) {
      const table = formatDateTime(at, { locale });
      const axis = timeAxisLabel(hour, { locale });
      assert.equal(twelveHour(axis), twelveHour(table), `${locale}: ${axis} / ${table}`);
    }
    assert.match(timeAxisLabel(hour, { locale: 'en-US' }), /^3:00\sPM$/);
    assert.equal(timeAxisLabel(hour, { locale: 'en-GB' }), '15:00');
    assert.equal(
      timeAxisLabel(new Date(2026, 2, 5).getTime(), { locale: 'en-US' }),
      'Mar 5',
      'a midnight names its day',
    );
    assert.equal(
      timeAxisLabel(Date.UTC(2026, 2, 1), { locale: 'en-US', timeZone: 'UTC' }),
      'Mar 2026',
      'the first of a month names the month',
    );
    // A moment is to the minute, a log entry to the second, and a table, a widget and a picture agree on the style.
    assert.match(formatDateTime(at, { locale: 'en-US' }), /^Mar 1, 2026, 3:05\sPM$/);
    assert.match(formatInstant(at, { locale: 'en-US' }), /^Mar 1, 2026, 3:05:00\sPM$/);
    assert.equal(formatValue(at, 'datetime'), formatDateTime(at));
    const words = valueText({ name: 'r', type: 'time_range' }, '2026-03-01T15:05:00Z/2026-03-02T15:05:00Z', at, {
      locale: 'en-US',
      timeZone: 'UTC',
    });
    assert.match(words, /^Mar 1, 2026, 3:05\sPM\s–\sMar 2, 2026, 3:05\sPM \(UTC\)$/);
  });

  test("a chart's legend is the page's list: ECharts' stays undrawn, and the list names each series or slice", () => {
    const look = { dark: false, reducedMotion: true };
    const days = queryResult(['day', 'a', 'b', 'c', 'd'], [{ day: '2026-01-01', a: 1, b: 2, c: 3, d: 4 }]);
    const lines = chartOption('line', days, {}, look);
    assert.deepEqual(lines.legend, { show: false }, "ECharts' legend keeps the selection, drawn by no one");
    assert.equal((lines.grid as { bottom: number }).bottom, 8, 'no room kept for it under the axis');
    assert.deepEqual(
      legendEntries(lines).map((e) => [e.name, e.colour, e.line]),
      ['a', 'b', 'c', 'd'].map((n, i) => [n, PALETTE.light[i], true]),
    );
    const areas = chartOption('area_stacked', days, {}, { ...look, dark: true });
    assert.deepEqual(legendEntries(areas)[1], { name: 'b', colour: PALETTE.dark[1] }, 'an area is a square');
    assert.deepEqual(legendEntries(chartOption('line', queryResult(['day', 'a'], [{ day: 'x', a: 1 }]), {}, look)), []);
    // A pie lists every slice, each in its own colour of the palette; a name is listed once.
    const slices = Array.from({ length: 8 }, (_, i) => ({ region: `r${i}`, n: i + 1 }));
    const pie = chartOption('pie', queryResult(['region', 'n'], [...slices, { region: 'r0', n: 1 }]), {}, look);
    const entries = legendEntries(pie);
    assert.deepEqual(
      entries.map((e) => e.name),
      slices.map((s) => s.region),
    );
    assert.deepEqual(
      entries.map((e) => e.colour),
      PALETTE.light.slice(0, 8),
    );
  });
});
