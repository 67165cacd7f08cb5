import { PALETTE, TEXT, TIME_LABELS, TIME_POINTER, TOOLTIP, type Look } from '../../widgets/chartOption.ts';
import { IMPACT_NAMES, IMPACT_ORDER, type ApiRun } from '../api.ts';

const LINES = { light: '#4d5560', dark: '#b8bec6' };

/** A time chart's axes and look, as the dashboards' line widgets draw them; its legend is the page's (ImpactLegend). */
function frame(look: Look) {
  const theme = look.dark ? 'dark' : 'light';
  const axisLine = { lineStyle: { color: LINES[theme] } };
  return {
    animation: !look.reducedMotion,
    color: PALETTE[theme],
    textStyle: { color: TEXT[theme] },
    tooltip: { trigger: 'axis', renderMode: 'richText', ...TOOLTIP[theme] },
    legend: { show: false },
    grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
    xAxis: {
      type: 'time',
      axisLine,
      axisLabel: { color: TEXT[theme], formatter: TIME_LABELS, hideOverlap: true },
      axisPointer: { label: { formatter: TIME_POINTER } },
    },
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLine,
      axisLabel: { color: TEXT[theme] },
      splitLine: { lineStyle: { color: look.dark ? '#3c4043' : '#dadce0' } },
    },
  };
}

const at = (r: ApiRun) => r.finishedAt ?? r.createdAt;

/** The score of each completed run over time (oldest first), 0 to 100. */
export function scoreOption(runs: ApiRun[], look: Look): Record<string, unknown> {
  const base = frame(look);
  return {
    ...base,
    yAxis: { ...base.yAxis, min: 0, max: 100 },
    series: [{ name: 'Score', type: 'line', data: runs.map((r) => [at(r), r.score]) }],
  };
}

/** Each impact's line marks its points with its own shape, so the lines differ by more than colour. */
export const IMPACT_SYMBOLS = ['circle', 'rect', 'triangle', 'diamond'] as const;

/**
 * Failures of each impact per completed run over time, one line per impact. Its legend is the page's own list below
 * the chart (TrendPanel.tsx), not ECharts': at 320 px that one wrapped onto the time axis' labels.
 */
export function impactOption(runs: ApiRun[], look: Look): Record<string, unknown> {
  return {
    ...frame(look),
    series: IMPACT_ORDER.map((impact, i) => ({
      name: IMPACT_NAMES[impact],
      type: 'line',
      symbol: IMPACT_SYMBOLS[i],
      symbolSize: 7,
      data: runs.map((r) => [at(r), r.stats?.[impact] ?? 0]),
    })),
  };
}
