import type { LegendEntry } from './legendEntry.ts';

interface Series {
  type?: string;
  name?: string;
  areaStyle?: unknown;
  data?: unknown[];
}

/**
 * What a chart option's legend lists, each in the colour ECharts draws it: a pie's slices, or the series of a chart
 * with more than one (one series needs no key; a gauge and a heatmap have one). The palette repeats past its last
 * colour, as ECharts repeats it. A name is listed once: ECharts hides and shows every series or slice of that name.
 */
export function legendEntries(option: Record<string, unknown>): LegendEntry[] {
  const colours = (option.color as string[] | undefined) ?? [];
  const series = (option.series as Series[] | undefined) ?? [];
  const pie = series.length === 1 && series[0]!.type === 'pie';
  if (!pie && series.length < 2) return [];
  const items = pie
    ? (series[0]!.data ?? []).map((d) => ({ name: String((d as { name?: unknown }).name ?? ''), line: false }))
    : series.map((s) => ({ name: s.name ?? '', line: s.type === 'line' && !s.areaStyle }));
  const seen = new Set<string>();
  return items.flatMap((item, i) => {
    if (seen.has(item.name)) return [];
    seen.add(item.name);
    const colour = colours[i % Math.max(colours.length, 1)] ?? 'currentColor';
    return [{ name: item.name, colour, ...(item.line ? { line: true, shape: 'circle' as const } : {}) }];
  });
}
