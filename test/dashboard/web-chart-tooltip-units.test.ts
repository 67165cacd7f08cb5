import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
// ECharts' own parser of rich text (its renderer, zrender): what a tooltip string is drawn as.
import { parseRichText } from 'zrender/lib/graphic/helper/parseText.js';
import { chartOption, PALETTE } from '../../web/dashboard/src/widgets/chartOption.ts';
import { impactOption, scoreOption } from '../../web/dashboard/src/audits/runs/trendOption.ts';
import { contrast } from './colour-difference.ts';
import { axisTooltip, type AxisPoint } from '../../web/dashboard/src/widgets/tooltip.ts';
import { queryResult } from './query-result.ts';

const look = { dark: false, reducedMotion: true };
/** Names from the data that look like rich-text markup to ECharts. */
const NAMES = ['{a|b} r|x}', 'a}b', 'x|y', '{s|amount}', '{'];
/** A marker as ECharts hands it to a formatter in rich-text mode: an empty block in a style of its own. */
const MARKER = '{__EC_aUTo_1|}';

/** The text a tooltip draws, line by line: each line's pieces of text, styled or not, without zero-width characters. */
function drawn(text: string): string[] {
  const block = parseRichText(text, { rich: { __EC_aUTo_1: {} }, font: '12px sans-serif' } as never, 0, 0, 'left');
  return block.lines.map((line: { tokens: { text: string }[] }) =>
    line.tokens
      .map((t) => t.text)
      .join('')
      .replaceAll('\u2060', ''),
  );
}

type Formatter = (p: unknown) => string;

describe("chart tooltips draw the data's names as they are written", () => {
  test('a pie slice named like markup is drawn letter for letter', () => {
    const r = queryResult(
      ['region', 'amount'],
      NAMES.map((region, i) => ({ region, amount: 10 + i })),
    );
    const option = chartOption('pie', r, {}, look);
    const series = (option.series as { tooltip: { formatter: Formatter }; data: { name: string }[] }[])[0]!;
    for (const data of series.data)
      assert.deepEqual(
        drawn(series.tooltip.formatter({ data, marker: MARKER, percent: 20 })),
        [`${data.name}: ${(data as unknown as { value: number }).value} (20%)`],
        data.name,
      );
  });

  test("line and bar tooltips head with the category and name each series, in the widget's format", () => {
    const r = queryResult(
      ['region', ...NAMES],
      ['{north|}', 'so}uth'].map((region, i) => ({ region, ...Object.fromEntries(NAMES.map((n, j) => [n, i + j])) })),
    );
    for (const type of ['line', 'bar', 'bar_horizontal', 'area_stacked']) {
      const option = chartOption(type, r, { format: 'currency', currency: 'EUR' }, look);
      const formatter = (option.tooltip as { formatter?: Formatter }).formatter;
      assert.ok(formatter, `${type}: the tooltip has a formatter of its own`);
      const points: AxisPoint[] = NAMES.map((seriesName, j) => ({
        seriesName,
        marker: MARKER,
        value: j,
        axisValueLabel: 'so}uth',
      }));
      const euros = (n: number) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(n);
      assert.deepEqual(drawn(formatter(points)), ['so}uth', ...NAMES.map((n, j) => `${n}: ${euros(j)}`)], type);
    }
  });

  test('a time chart takes the value from [time, value]; a missing value is "-"', () => {
    const format = axisTooltip((v) => `#${v}`);
    const points: AxisPoint[] = [
      { seriesName: 'a}b', marker: MARKER, value: [1_700_000_000_000, 5], axisValueLabel: 'Nov 14, 2023' },
      { seriesName: '{x|y}', marker: MARKER, value: [1_700_000_000_000, null], axisValueLabel: 'Nov 14, 2023' },
    ];
    assert.deepEqual(drawn(format(points)), ['Nov 14, 2023', 'a}b: #5', '{x|y}: -']);
  });

  test("a heatmap's cell names its value column, its column and its row as they are", () => {
    const r = queryResult(
      ['day', '{w|}eek', 'n}'],
      [
        { day: 'Mon', '{w|}eek': '{1|}', 'n}': 3 },
        { day: 'T|ue', '{w|}eek': '2}', 'n}': 4 },
      ],
    );
    const option = chartOption('heatmap', r, { yCategory: '{w|}eek' }, look);
    const formatter = (option.tooltip as { formatter?: Formatter }).formatter;
    assert.ok(formatter, 'the heatmap has a tooltip formatter');
    assert.deepEqual(drawn(formatter({ marker: MARKER, value: [1, 1, 4] })), ['n}', 'T|ue, 2}: 4']);
  });
});

describe("chart tooltips are drawn in the page's colours", () => {
  test("each chart's tooltip is on the page's background, its text 4.5:1 and every marker 3:1 on it", () => {
    const css = readFileSync(new URL('../../web/dashboard/src/styles.css', import.meta.url), 'utf8');
    const [light, dark] = [...css.matchAll(/--bg:\s*(#[0-9a-f]{6})/gi)].map((m) => m[1]!);
    const r = queryResult(
      ['day', 'region', 'amount'],
      [
        { day: '2026-03-01', region: 'north', amount: 3 },
        { day: '2026-03-02', region: 'south', amount: 4 },
      ],
    );
    for (const [theme, bg] of [
      ['light', light],
      ['dark', dark],
    ] as const) {
      const look = { dark: theme === 'dark', reducedMotion: true };
      const options = {
        ...Object.fromEntries(
          ['line', 'bar', 'pie', 'scatter', 'heatmap'].map((t) => [t, chartOption(t, r, {}, look)]),
        ),
        'audit score': scoreOption([], look),
        'audit impacts': impactOption([], look),
      };
      for (const [name, option] of Object.entries(options)) {
        const tip = option.tooltip as { backgroundColor?: string; textStyle?: { color?: string } };
        assert.equal(tip.backgroundColor, bg, `${theme} ${name}: the tooltip is on the page's background`);
        const text = tip.textStyle?.color ?? '#666666';
        assert.ok(contrast(text, bg!) >= 4.5, `${theme} ${name}: its text ${text} on ${bg}`);
      }
      for (const c of PALETTE[theme]) assert.ok(contrast(c, bg!) >= 3, `${theme}: the marker ${c} on ${bg}`);
    }
  });
});
