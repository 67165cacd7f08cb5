import type { LegendEntry, Shape } from './legendEntry.ts';
import { type PieSlice, sliceLabel } from './pieSlices.ts';

interface Series {
  type?: string;
  name?: string;
  areaStyle?: unknown;
  symbol?: Shape;
  lineStyle?: { type?: string };
  itemStyle?: { decal?: unknown };
  data?: unknown[];
}

/** How a series marks itself beyond its colour (chartOption.ts' pastPalette), for its swatch. */
function marks(s: Series): Omit<LegendEntry, 'name' | 'colour'> {
  const dashed = s.lineStyle?.type === 'dashed' ? { dashed: true } : {};
  if (s.type === 'line' && !s.areaStyle) return { line: true, shape: s.symbol ?? 'circle', ...dashed };
  if (s.type === 'scatter') return { shape: s.symbol ?? 'circle' };
  if (s.type === 'bar' && s.itemStyle?.decal) return { striped: true };
  return dashed;
}

/**
 * What a chart option's legend lists, each in the colour and marks ECharts draws it with: a pie's slices (its "Other"
 * saying how many it holds), or the series of a chart with more than one (one series needs no key; a gauge and a
 * heatmap have one). Series past the palette's end repeat its colours, as ECharts does, with their own marks. A name
 * is listed once: ECharts hides and shows every series or slice of that name.
 */
export function legendEntries(option: Record<string, unknown>): LegendEntry[] {
  const colours = (option.color as string[] | undefined) ?? [];
  const series = (option.series as Series[] | undefined) ?? [];
  const pie = series.length === 1 && series[0]!.type === 'pie';
  if (!pie && series.length < 2) return [];
  const colourAt = (i: number) => colours[i % Math.max(colours.length, 1)] ?? 'currentColor';
  const items: LegendEntry[] = pie
    ? ((series[0]!.data ?? []) as PieSlice[]).map((d, i) => {
        const name = String(d.name ?? '');
        const label = sliceLabel({ name, held: d.held });
        return { name, ...(label !== name ? { label } : {}), colour: d.itemStyle?.color ?? colourAt(i) };
      })
    : series.map((s, i) => ({ name: s.name ?? '', colour: colourAt(i), ...marks(s) }));
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.name) && seen.add(item.name));
}
