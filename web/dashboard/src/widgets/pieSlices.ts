/** The name of the slice that holds a pie's smallest slices, as Metabase names it. */
export const OTHER = 'Other';

export interface PieSlice {
  name: string;
  value: number;
  /** For "Other": how many of the query's slices it holds. */
  held?: number;
  itemStyle?: { color: string };
}

/** What a slice is called on the canvas, in its tooltip and in the legend: "Other" says how many slices it holds. */
export const sliceLabel = (s: { name: string; held?: number | undefined }) =>
  s.held ? `${s.name} (${s.held} slices)` : s.name;

/**
 * A pie's slices, one colour each: with more slices than `colours`, the largest (colours − 1) keep their place and
 * the rest are summed into one "Other" slice, last, in the palette's last colour (ECharts would start the palette
 * again, so two slices would look the same). A row the query itself calls "Other" joins it, so no two slices share
 * the name the legend hides them by. Only the drawing groups: the widget's data table keeps every row.
 */
export function pieSlices(rows: readonly { name: string; value: number }[], colours: readonly string[]): PieSlice[] {
  if (rows.length <= colours.length) return [...rows];
  const byValue = rows
    .map((row, at) => ({ row, at }))
    .filter(({ row }) => row.name !== OTHER)
    .sort((a, b) => b.row.value - a.row.value || a.at - b.at);
  const kept = new Set(byValue.slice(0, colours.length - 1).map(({ at }) => at));
  const rest = rows.filter((_, at) => !kept.has(at));
  return [
    ...rows.filter((_, at) => kept.has(at)),
    {
      name: OTHER,
      value: rest.reduce((sum, row) => sum + row.value, 0),
      held: rest.length,
      itemStyle: { color: colours[colours.length - 1]! },
    },
  ];
}

/** How many slices a pie option's "Other" holds, when it has one (the canvas' summary says so). */
export function heldByOther(option: Record<string, unknown>): number | undefined {
  const series = option.series as { type?: string; data?: PieSlice[] }[] | undefined;
  if (series?.[0]?.type !== 'pie') return undefined;
  return series[0].data?.find((s) => s.name === OTHER && s.held)?.held;
}
