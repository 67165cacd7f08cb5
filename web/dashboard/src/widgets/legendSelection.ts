import type { EChartsType } from './echarts.ts';

/**
 * ECharts keeps which series its legend hides in the legend component's `selected` map, and hides them also when
 * that legend is not drawn (`show: false`): the page's own legend (Legend.tsx) sets the map through ECharts' actions.
 */
const selectedOf = (c: EChartsType): Record<string, boolean> =>
  (c.getOption() as { legend?: { selected?: Record<string, boolean> }[] }).legend?.[0]?.selected ?? {};

/** The names ECharts hides now (the chart box's `data-hidden`, which tests read). */
export const hiddenOf = (c: EChartsType): string[] =>
  Object.entries(selectedOf(c))
    .filter(([, shown]) => !shown)
    .map(([name]) => name);

/**
 * The option with `hidden` in its legend's selection: a new option replaces the old one whole (`notMerge`), which
 * would show every series again on each refresh.
 */
export function withHidden(option: Record<string, unknown>, hidden: ReadonlySet<string>): Record<string, unknown> {
  const legend = option.legend as Record<string, unknown> | undefined;
  if (!legend || hidden.size === 0) return option;
  return { ...option, legend: { ...legend, selected: Object.fromEntries([...hidden].map((n) => [n, false])) } };
}

/** ECharts' actions that hide and show series until it hides exactly `hidden` (none when it already does). */
export function legendActions(c: EChartsType, hidden: ReadonlySet<string>): { type: string; name: string }[] {
  const selected = selectedOf(c);
  return [
    ...[...hidden].filter((name) => selected[name] !== false).map((name) => ({ type: 'legendUnSelect', name })),
    ...Object.keys(selected)
      .filter((name) => selected[name] === false && !hidden.has(name))
      .map((name) => ({ type: 'legendSelect', name })),
  ];
}
