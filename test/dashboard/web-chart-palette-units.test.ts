import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chartOption, PALETTE } from '../../web/dashboard/src/widgets/chartOption.ts';
import { legendEntries } from '../../web/dashboard/src/widgets/legendEntries.ts';
import { contrast, difference } from './colour-difference.ts';
import { queryResult } from './query-result.ts';

const THEMES = ['light', 'dark'] as const;
const look = (theme: 'light' | 'dark') => ({ dark: theme === 'dark', reducedMotion: true });

/** The page's background in each theme: styles.css' --bg, the colour every widget is drawn on. */
function backgrounds(): Record<'light' | 'dark', string> {
  const css = readFileSync(new URL('../../web/dashboard/src/styles.css', import.meta.url), 'utf8');
  const [light, dark] = [...css.matchAll(/--bg:\s*(#[0-9a-f]{6})/gi)].map((m) => m[1]!);
  assert.ok(light && dark, 'styles.css sets --bg for the light theme and for prefers-color-scheme: dark');
  return { light, dark };
}

/** The colour ECharts fills each slice of a pie option with: its own, else the palette's in turn. */
const sliceColours = (option: Record<string, unknown>) => {
  const colours = option.color as string[];
  const data = (option.series as { data: { itemStyle?: { color: string } }[] }[])[0]!.data;
  return data.map((d, i) => d.itemStyle?.color ?? colours[i % colours.length]!);
};

describe("the charts' palette past six colours", () => {
  test('ten colours a theme, the first six as before, each 3:1 on its background and apart from its neighbours', () => {
    const bg = backgrounds();
    assert.deepEqual(PALETTE.light.slice(0, 6), ['#0b57d0', '#c5221f', '#137333', '#8430ce', '#a84b00', '#00687a']);
    assert.deepEqual(PALETTE.dark.slice(0, 6), ['#8ab4f8', '#f28b82', '#81c995', '#d7aefb', '#fdd663', '#78d9ec']);
    for (const theme of THEMES) {
      const p = PALETTE[theme];
      assert.ok(p.length >= 10, `${theme}: ${p.length} colours`);
      for (const c of p) {
        const ratio = contrast(c, bg[theme]);
        assert.ok(ratio >= 3, `${theme} ${c} on ${bg[theme]}: ${ratio.toFixed(2)}:1 (WCAG 1.4.11 asks 3:1)`);
      }
      // Neighbours, the last beside the first too (a pie's "Other" meets its first slice): far apart. No two colours
      // closer than the old six's closest pair (red and orange, 15).
      for (const [i, c] of p.entries()) {
        const next = p[(i + 1) % p.length]!;
        assert.ok(difference(c, next) >= 20, `${theme}: ${c} beside ${next}, ΔE ${difference(c, next).toFixed(1)}`);
        for (const other of p.slice(i + 1))
          assert.ok(difference(c, other) >= 15, `${theme}: ${c} and ${other}, ΔE ${difference(c, other).toFixed(1)}`);
      }
    }
    assert.equal(PALETTE.light.length, PALETTE.dark.length, 'a series keeps its place in either theme');
  });

  test('a pie of twelve slices draws the nine largest and "Other", the sum of the three smallest, each in its colour', () => {
    const values = [40, 3, 25, 18, 2, 30, 12, 9, 1, 22, 15, 7];
    const r = queryResult(
      ['region', 'amount'],
      values.map((amount, i) => ({ region: `region ${i + 1}`, amount })),
    );
    const before = structuredClone(r);
    for (const theme of THEMES) {
      const option = chartOption('pie', r, {}, look(theme));
      const data = (option.series as { data: { name: string; value: number; held?: number }[] }[])[0]!.data;
      assert.ok(data.length <= PALETTE[theme].length, `${theme}: ${data.length} slices drawn`);
      // The largest keep the query's order; the three smallest (2, 3 and 1) are one slice, last.
      assert.deepEqual(
        data.map((d) => d.name),
        [
          'region 1',
          'region 3',
          'region 4',
          'region 6',
          'region 7',
          'region 8',
          'region 10',
          'region 11',
          'region 12',
          'Other',
        ],
      );
      assert.deepEqual(data.at(-1), { name: 'Other', value: 6, held: 3, itemStyle: { color: PALETTE[theme].at(-1) } });
      const colours = sliceColours(option);
      assert.equal(new Set(colours).size, colours.length, `${theme}: every slice its own colour ${colours}`);
      // The legend lists "Other" like any slice, in the colour drawn, and says how many it holds.
      const entries = legendEntries(option);
      assert.deepEqual(
        entries.map((e) => e.colour),
        colours,
      );
      assert.deepEqual(entries.at(-1), { name: 'Other', label: 'Other (3 slices)', colour: PALETTE[theme].at(-1) });
      const series = (option.series as any[])[0];
      assert.equal(series.label.formatter({ data: data.at(-1) }), 'Other (3 slices)');
      assert.equal(series.label.formatter({ data: data[0] }), 'region 1');
      assert.equal(
        series.tooltip.formatter({ data: data.at(-1), marker: '', percent: 3.2 }),
        'Other (3 slices): 6 (3.2%)',
      );
    }
    assert.deepEqual(r, before, "the rows stay whole: the widget's data table lists all twelve");
  });

  test('a pie that fits the palette is drawn as it is; a row called "Other" joins the grouped one', () => {
    const ten = queryResult(
      ['region', 'amount'],
      Array.from({ length: 10 }, (_, i) => ({ region: `r${i}`, amount: i + 1 })),
    );
    const fits = chartOption('pie', ten, {}, look('light'));
    const data = (fits.series as { data: unknown[] }[])[0]!.data;
    assert.deepEqual(
      data,
      ten.rows.map((row) => ({ name: row.region, value: row.amount })),
    );
    // The query's own "Other", its largest row, and the smallest slice are one slice: "Other (2 slices)".
    const withOther = queryResult(['region', 'amount'], [...ten.rows, { region: 'Other', amount: 100 }]);
    const grouped = (chartOption('pie', withOther, {}, look('light')).series as any[])[0].data;
    assert.equal(grouped.length, 10);
    assert.equal(grouped.filter((d: { name: string }) => d.name === 'Other').length, 1, 'one slice of that name');
    assert.deepEqual(grouped.at(-1), {
      name: 'Other',
      value: 1 + 100,
      held: 2,
      itemStyle: { color: PALETTE.light.at(-1) },
    });
  });

  test('series past the palette repeat its colours, dashed with another shape, striped, in the legend as drawn', () => {
    const names = Array.from({ length: 12 }, (_, i) => `s${i + 1}`);
    const r = queryResult(
      ['day', ...names],
      [Object.fromEntries([['day', '2026-01-01'], ...names.map((n, i) => [n, i])])],
    );
    for (const theme of THEMES) {
      const n = PALETTE[theme].length;
      const lines = chartOption('line', r, {}, look(theme));
      const series = lines.series as { lineStyle?: { type: string }; symbol?: string }[];
      assert.equal(series[0]!.lineStyle, undefined, 'the first round solid');
      assert.deepEqual([series[n]!.lineStyle?.type, series[n]!.symbol], ['dashed', 'triangle']);
      const entries = legendEntries(lines);
      assert.deepEqual(entries[0], { name: 's1', colour: PALETTE[theme][0], line: true, shape: 'circle' });
      assert.deepEqual(entries[n], {
        name: `s${n + 1}`,
        colour: PALETTE[theme][0],
        line: true,
        shape: 'triangle',
        dashed: true,
      });
      // Two entries of one colour always differ in their marks.
      const looks = entries.map((e) => JSON.stringify({ ...e, name: undefined }));
      assert.equal(new Set(looks).size, entries.length, `${theme}: ${looks}`);

      const areas = legendEntries(chartOption('area_stacked', r, {}, look(theme)));
      assert.deepEqual([areas[0]!.dashed, areas[n]!.dashed], [undefined, true], "an area's square outlined in dashes");
      const bars = legendEntries(chartOption('bar_stacked', r, {}, look(theme)));
      assert.equal(bars[0]!.striped, undefined);
      assert.equal(bars[n]!.striped, true);
      const points = legendEntries(chartOption('scatter', r, { x: 's1' }, look(theme)));
      assert.deepEqual(
        [points[0]!.shape, points[n]!.shape, points[n]!.line],
        ['circle', 'triangle', undefined],
        'points in their shape (s1 is the x axis, so s12 is the eleventh series)',
      );
    }
  });
});
