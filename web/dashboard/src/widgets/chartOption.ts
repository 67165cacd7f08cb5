import type { ApiQueryResult } from '../api/types.ts';
import { timeAxisLabel, timePointLabel } from '../app/datetime.ts';
import { heatmapColumns, seriesColumns, show, toNumber, type WidgetOptions } from './data.ts';
import { formatValue, isFormat } from './format.ts';
import type { Shape } from './legendEntry.ts';
import { type PieSlice, pieSlices, sliceLabel } from './pieSlices.ts';
import { axisTooltip, literal } from './tooltip.ts';

/**
 * Series colours with at least 3:1 contrast against each theme's background (WCAG 1.4.11, non-text contrast), each
 * slot the same family in both themes. The first six were the whole palette once and keep their place, so no chart
 * drawn before changes colour; the four after them (pink, olive, brown, grey) were chosen by their distance from every
 * other colour (CIEDE2000). Grey is last: a pie's "Other" takes it (pieSlices.ts).
 */
export const PALETTE = {
  light: ['#0b57d0', '#c5221f', '#137333', '#8430ce', '#a84b00', '#00687a', '#b0186e', '#8d8a00', '#4e342e', '#80868b'],
  dark: ['#8ab4f8', '#f28b82', '#81c995', '#d7aefb', '#fdd663', '#78d9ec', '#ff63b8', '#9e9d24', '#8d6e63', '#a8a8a8'],
};
export const TEXT = { light: '#1b1f24', dark: '#e8eaed' };
const LINES = { light: '#4d5560', dark: '#b8bec6' };
/**
 * A tooltip in the page's colours (styles.css' --bg and --fg): ECharts' white box with grey text stood out of a dark
 * page, and the dark palette's light markers barely showed on it.
 */
export const TOOLTIP = {
  light: { backgroundColor: '#ffffff', borderColor: LINES.light, textStyle: { color: TEXT.light } },
  dark: { backgroundColor: '#121417', borderColor: LINES.dark, textStyle: { color: TEXT.dark } },
};

export interface Look {
  dark: boolean;
  reducedMotion: boolean;
  /** Time charts offer selecting a span (the dashboard has a time range parameter to set). */
  zoom?: boolean;
}

/**
 * Time-axis labels by what each tick marks (app/datetime.ts): a day is "Nov 5", not ECharts' bare "5", so a range
 * within one month still says which month it is; times of day are labelled by the day at each midnight, and written
 * as the tables write them, in the same hour cycle.
 */
export const TIME_LABELS = (value: number) => timeAxisLabel(value);
/** The tooltip's heading on a time axis, in the tables' style (ECharts reads it from the axis pointer's label). */
export const TIME_POINTER = ({ value }: { value: number | string | Date }) => timePointLabel(value);

const looksLikeTime = (values: unknown[]) =>
  values.length > 0 &&
  values.every((v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)));

/**
 * The ECharts option for a chart widget from a query result: lines and areas (stacked or not), bars (stacked,
 * horizontal), scatter, heatmap, gauge, pie. Animation is off when motion is reduced. The legend, for a pie or more
 * than one series, is the page's own (legendEntries.ts reads it from the option).
 */
export function chartOption(type: string, r: ApiQueryResult, o: WidgetOptions, look: Look): Record<string, unknown> {
  const theme = look.dark ? 'dark' : 'light';
  const { x, y } = seriesColumns(r, o);
  const common = {
    animation: !look.reducedMotion,
    color: PALETTE[theme],
    textStyle: { color: TEXT[theme] },
    tooltip: { trigger: type === 'pie' ? 'item' : 'axis', renderMode: 'richText', ...TOOLTIP[theme] },
    // The legend is the page's list under the canvas (Legend.tsx); ECharts' stays undrawn but keeps which series
    // are hidden. Drawn, it wrapped at 320 px onto the axis' labels, and no keyboard or screen reader reached it.
    legend: { show: false },
  };
  if (!x) return common;
  if (type === 'pie') {
    const value = y[0];
    const format = isFormat(o.format) ? o.format : undefined;
    const rows = r.rows.map((row) => ({ name: show(row[x]), value: value ? (toNumber(row[value]) ?? 0) : 0 }));
    return {
      ...common,
      series: [
        {
          type: 'pie',
          radius: ['35%', '65%'],
          // Lines 17 px apart: ECharts moves labels apart until their boxes no longer overlap, and at the default
          // height the small slices' names, crowded at the top, touched ("Other (3 slices)" on "region 9", 320 px).
          label: {
            color: TEXT[theme],
            lineHeight: 17,
            formatter: ({ data }: { data: PieSlice }) => sliceLabel(data),
          },
          // "Other" says how many slices it holds; every slice its share, as Metabase's tooltip gives it.
          tooltip: {
            formatter: ({ data, marker, percent }: { data: PieSlice; marker: string; percent: number }) =>
              `${marker}${literal(sliceLabel(data))}: ${formatValue(data.value, format ?? 'number', o)} (${percent}%)`,
          },
          data: pieSlices(rows, PALETTE[theme]),
        },
      ],
      // On a phone the full ring left its slices' names no room beside it ("regi…"); a smaller one and shorter label
      // lines let them fit (the legend under the chart names every slice too). The entry without a query is what a
      // wider chart goes back to: without it ECharts kept the small ring once a chart had been narrow, as a widget
      // is for a moment while the grid is laid out, so a wide pie was drawn small on some loads and not others.
      media: [
        { option: { series: [{ radius: ['35%', '65%'], labelLine: { length: 15, length2: 15 } }] } },
        {
          query: { maxWidth: 360 },
          option: { series: [{ radius: ['25%', '45%'], labelLine: { length: 6, length2: 6 } }] },
        },
      ],
    };
  }
  if (type === 'heatmap') return heatmapOption(common, r, o, look);
  if (type === 'gauge') return gaugeOption(common, r, y[0] ?? r.columns[0], theme);
  const xs = r.rows.map((row) => row[x]);
  const lines = type === 'line' || type === 'area' || type === 'area_stacked';
  const time = lines && looksLikeTime(xs);
  // Bars of dates stay categories (one bar each) but can still be zoomed into: each bar is its date.
  const zoomable = time || ((type === 'bar' || type === 'bar_stacked') && looksLikeTime(xs));
  // A scatter plot of two numeric columns puts numbers on both axes; of a category column, categories.
  const numericX = type === 'scatter' && xs.every((v) => toNumber(v) !== undefined);
  const axisLine = { lineStyle: { color: LINES[theme] } };
  const categoryAxis = time
    ? {
        type: 'time',
        axisLine,
        axisLabel: { color: TEXT[theme], formatter: TIME_LABELS, hideOverlap: true },
        axisPointer: { label: { formatter: TIME_POINTER } },
      }
    : numericX
      ? { type: 'value', scale: true, axisLine, axisLabel: { color: TEXT[theme] }, splitLine: { show: false } }
      : { type: 'category', data: xs.map(show), axisLine, axisLabel: { color: TEXT[theme] } };
  // The values' format (currency, percent, bytes, ...) on the value axes and in the tooltip.
  const format = isFormat(o.format) ? o.format : undefined;
  const written = (v: unknown) => formatValue(v, format ?? 'number', o);
  const valueAxis = {
    type: 'value',
    axisLine,
    axisLabel: { color: TEXT[theme], ...(format ? { formatter: written } : {}) },
    splitLine: { lineStyle: { color: look.dark ? '#3c4043' : '#dadce0' } },
  };
  const right = new Set((o.y2 ?? []).filter((c) => y.includes(c)));
  const horizontal = type === 'bar_horizontal';
  const stacked = type === 'bar_stacked' || type === 'area_stacked';
  return {
    ...common,
    grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
    // Selecting a span of a time axis (Chart.tsx turns the brush on) zooms the dashboard's time range to it.
    ...(zoomable && look.zoom
      ? {
          brush: {
            xAxisIndex: 0,
            brushType: 'lineX',
            brushMode: 'single',
            transformable: false,
            throttleType: 'debounce',
          },
        }
      : {}),
    // Names written as they are (tooltip.ts), values in the widget's format.
    tooltip: { ...common.tooltip, formatter: axisTooltip(written) },
    xAxis: horizontal ? valueAxis : categoryAxis,
    // Horizontal bars read top to bottom in the rows' order; a second value axis is on the right.
    yAxis: horizontal
      ? { ...categoryAxis, inverse: true }
      : right.size > 0 && !horizontal
        ? [valueAxis, { ...valueAxis, position: 'right', splitLine: { show: false } }]
        : valueAxis,
    series: y.map((c, i) => ({
      name: c,
      ...(right.has(c) && !horizontal ? { yAxisIndex: 1 } : {}),
      type: lines ? 'line' : type === 'scatter' ? 'scatter' : 'bar',
      ...(lines ? { showSymbol: r.rows.length <= 100 } : {}),
      ...pastPalette(lines ? 'line' : type === 'scatter' ? 'scatter' : 'bar', i, theme),
      ...(type === 'area' || type === 'area_stacked' ? { areaStyle: { opacity: 0.35 } } : {}),
      ...(stacked ? { stack: 'total' } : {}),
      data:
        time || numericX
          ? r.rows.map((row) => [numericX ? toNumber(row[x]) : row[x], toNumber(row[c]) ?? null])
          : r.rows.map((row) => toNumber(row[c]) ?? null),
    })),
  };
}

/** The point shape of each round of the palette: the first round's, then those of the rounds past its end. */
const ROUND_SHAPES: readonly Shape[] = ['circle', 'triangle', 'diamond', 'rect'];
/** A striped bar's stripes: the page's background (--bg) at 60%, as the legend's swatch draws them. */
const STRIPES = { light: 'rgba(255, 255, 255, 0.6)', dark: 'rgba(18, 20, 23, 0.6)' };

/**
 * How a series whose colour repeats an earlier one's differs from it: the palette cannot be summed like a pie's
 * slices, so each round past its end draws lines dashed with another point shape, scatter points in another shape
 * and bars striped (legendEntries.ts gives the legend's swatch the same marks).
 */
function pastPalette(kind: 'line' | 'scatter' | 'bar', index: number, theme: 'light' | 'dark') {
  const round = Math.floor(index / PALETTE[theme].length);
  if (round === 0) return {};
  const symbol = ROUND_SHAPES[round % ROUND_SHAPES.length];
  if (kind === 'line') return { symbol, symbolSize: 7, lineStyle: { type: 'dashed' } };
  if (kind === 'scatter') return { symbol };
  return {
    itemStyle: {
      decal: {
        symbol: 'rect',
        symbolSize: 1,
        dashArrayX: [1, 0],
        dashArrayY: [3, 3],
        rotation: -Math.PI / 4,
        color: STRIPES[theme],
      },
    },
  };
}

/** A gauge of the first row's value, from 0 to the next round number above it (or the widget's `max`). */
function gaugeOption(
  common: Record<string, unknown>,
  r: ApiQueryResult,
  column: string | undefined,
  theme: 'light' | 'dark',
) {
  const value = column ? (toNumber(r.rows[0]?.[column]) ?? 0) : 0;
  const scale = 10 ** Math.max(0, Math.floor(Math.log10(Math.abs(value) || 1)));
  const max = Math.max(scale, Math.ceil((Math.abs(value) * 1.1) / scale) * scale);
  return {
    ...common,
    tooltip: { show: false },
    series: [
      {
        type: 'gauge',
        min: 0,
        max,
        radius: '95%',
        center: ['50%', '58%'],
        splitNumber: 4,
        pointer: { show: false },
        progress: { show: true, width: 14 },
        axisLine: { lineStyle: { width: 14, color: [[1, theme === 'dark' ? '#3c4043' : '#dadce0']] } },
        axisTick: { show: false },
        splitLine: { distance: 4, length: 6, lineStyle: { color: TEXT[theme] } },
        axisLabel: { color: TEXT[theme], distance: 24, fontSize: 11 },
        detail: { color: TEXT[theme], fontSize: 26, offsetCenter: [0, '0%'], valueAnimation: false },
        title: { color: TEXT[theme], offsetCenter: [0, '35%'] },
        data: [{ value, name: column ?? '' }],
      },
    ],
  };
}

/**
 * Colour ramps for a heatmap, from low to high: the light end still stands 3:1 against the page in each theme
 * (WCAG 1.4.11), so even the smallest value is a visible cell; the legend (visual map) reads the scale.
 */
const HEAT = { light: ['#4285f4', '#0b57d0', '#0b2a66'], dark: ['#4a7fd4', '#8ab4f8', '#e8f0fe'] };

/** A heatmap: the x column across, the row category down, each cell coloured by its value, with the scale below. */
function heatmapOption(common: Record<string, unknown>, r: ApiQueryResult, o: WidgetOptions, look: Look) {
  const theme = look.dark ? 'dark' : 'light';
  const { x, category, value } = heatmapColumns(r, o);
  if (!x || !category || !value) return common;
  const xs = [...new Set(r.rows.map((row) => show(row[x])))];
  const ys = [...new Set(r.rows.map((row) => show(row[category])))];
  const data = r.rows.flatMap((row) => {
    const v = toNumber(row[value]);
    return v === undefined ? [] : [[xs.indexOf(show(row[x])), ys.indexOf(show(row[category])), v]];
  });
  const values = data.map((d) => d[2]!);
  const format = isFormat(o.format) ? o.format : undefined;
  const written = (v: unknown) => formatValue(v, format ?? 'number', o);
  const axisLine = { lineStyle: { color: LINES[theme] } };
  const axis = (names: string[]) => ({
    type: 'category',
    data: names,
    axisLine,
    axisLabel: { color: TEXT[theme], hideOverlap: true },
    splitArea: { show: false },
  });
  return {
    ...common,
    tooltip: {
      trigger: 'item',
      renderMode: 'richText',
      ...TOOLTIP[theme],
      formatter: ({ marker, value: at }: { marker: string; value: [number, number, number] }) =>
        `${literal(value)}\n${marker}${literal(xs[at[0]] ?? '')}, ${literal(ys[at[1]] ?? '')}: ${written(at[2])}`,
    },
    grid: { left: 8, right: 16, top: 16, bottom: 56, containLabel: true },
    xAxis: axis(xs),
    // The rows read top to bottom in the query's order, as in a table.
    yAxis: { ...axis(ys), inverse: true },
    visualMap: {
      type: 'continuous',
      min: Math.min(...values, 0),
      max: Math.max(...values, 1),
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      itemHeight: 120,
      itemWidth: 12,
      text: [written(Math.max(...values, 1)), written(Math.min(...values, 0))],
      showLabel: true,
      textStyle: { color: TEXT[theme] },
      inRange: { color: HEAT[theme] },
      formatter: written,
    },
    series: [
      {
        name: value,
        type: 'heatmap',
        data,
        itemStyle: { borderColor: look.dark ? '#202124' : '#ffffff', borderWidth: 1 },
        emphasis: { itemStyle: { borderColor: TEXT[theme], borderWidth: 2 } },
      },
    ],
  };
}
