import type { ApiQueryResult } from '../api/types.ts';
import { seriesColumns, show, toNumber, type WidgetOptions } from './data.ts';

/** Series colours with at least 3:1 contrast against each theme's background (WCAG 1.4.11, non-text contrast). */
export const PALETTE = {
  light: ['#0b57d0', '#c5221f', '#137333', '#8430ce', '#a84b00', '#00687a'],
  dark: ['#8ab4f8', '#f28b82', '#81c995', '#d7aefb', '#fdd663', '#78d9ec'],
};
export const TEXT = { light: '#1b1f24', dark: '#e8eaed' };
const LINES = { light: '#4d5560', dark: '#b8bec6' };

export interface Look {
  dark: boolean;
  reducedMotion: boolean;
}

/**
 * Time-axis labels by the level of each tick: a day is "Nov 5", not ECharts' bare "5", so a range within one month
 * still says which month it is; times of day are labelled by the day at each midnight.
 */
export const TIME_LABELS = {
  year: '{yyyy}',
  month: '{MMM} {yyyy}',
  day: '{MMM} {d}',
  hour: '{HH}:{mm}',
  minute: '{HH}:{mm}',
  second: '{HH}:{mm}:{ss}',
  millisecond: '{HH}:{mm}:{ss}.{SSS}',
};

const looksLikeTime = (values: unknown[]) =>
  values.length > 0 &&
  values.every((v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)));

/** The ECharts option for a line, bar or pie widget from a query result. Animation is off when motion is reduced. */
export function chartOption(type: string, r: ApiQueryResult, o: WidgetOptions, look: Look): Record<string, unknown> {
  const theme = look.dark ? 'dark' : 'light';
  const { x, y } = seriesColumns(r, o);
  const common = {
    animation: !look.reducedMotion,
    color: PALETTE[theme],
    textStyle: { color: TEXT[theme] },
    tooltip: { trigger: type === 'pie' ? 'item' : 'axis', renderMode: 'richText' },
    legend: { show: type === 'pie' || y.length > 1, textStyle: { color: TEXT[theme] }, bottom: 0 },
  };
  if (!x) return common;
  if (type === 'pie') {
    const value = y[0];
    return {
      ...common,
      series: [
        {
          type: 'pie',
          radius: ['35%', '65%'],
          label: { color: TEXT[theme] },
          data: r.rows.map((row) => ({ name: show(row[x]), value: value ? (toNumber(row[value]) ?? 0) : 0 })),
        },
      ],
    };
  }
  const xs = r.rows.map((row) => row[x]);
  const time = type === 'line' && looksLikeTime(xs);
  const axisLine = { lineStyle: { color: LINES[theme] } };
  return {
    ...common,
    grid: { left: 8, right: 16, top: 16, bottom: y.length > 1 ? 40 : 8, containLabel: true },
    xAxis: time
      ? { type: 'time', axisLine, axisLabel: { color: TEXT[theme], formatter: TIME_LABELS, hideOverlap: true } }
      : { type: 'category', data: xs.map(show), axisLine, axisLabel: { color: TEXT[theme] } },
    yAxis: {
      type: 'value',
      axisLine,
      axisLabel: { color: TEXT[theme] },
      splitLine: { lineStyle: { color: look.dark ? '#3c4043' : '#dadce0' } },
    },
    series: y.map((c) => ({
      name: c,
      type,
      showSymbol: r.rows.length <= 100,
      data: time
        ? r.rows.map((row) => [row[x], toNumber(row[c]) ?? null])
        : r.rows.map((row) => toNumber(row[c]) ?? null),
    })),
  };
}
