import type { ApiQueryResult, ApiWidget } from '../api/types.ts';

/** The widget kinds the app draws; `type` in the definition is one of these. */
export const WIDGET_TYPES = [
  { value: 'line', label: 'Time series (line)' },
  { value: 'area', label: 'Area chart' },
  { value: 'area_stacked', label: 'Stacked areas' },
  { value: 'bar', label: 'Bar chart' },
  { value: 'bar_stacked', label: 'Stacked bars' },
  { value: 'bar_horizontal', label: 'Horizontal bars' },
  { value: 'scatter', label: 'Scatter plot' },
  { value: 'heatmap', label: 'Heatmap' },
  { value: 'gauge', label: 'Gauge' },
  { value: 'pie', label: 'Pie chart' },
  { value: 'stat', label: 'Single number' },
  { value: 'table', label: 'Table' },
  { value: 'text', label: 'Text (Markdown)' },
] as const;

const CHARTS = new Set([
  'line',
  'area',
  'area_stacked',
  'bar',
  'bar_stacked',
  'bar_horizontal',
  'scatter',
  'heatmap',
  'gauge',
  'pie',
]);
export const isChart = (type: string) => CHARTS.has(type);

/** A widget's own settings, kept in `options`: which column is the category or time, which are the values. */
export interface WidgetOptions {
  x?: string;
  y?: string[];
  /** Value columns drawn against a second axis, on the right. */
  y2?: string[];
  /** A heatmap's second category column, its rows (x gives its columns, the first value column the colour). */
  yCategory?: string;
  markdown?: string;
  unit?: string;
  /** The value columns' format in charts, and each column's in tables (`column: format`). */
  format?: string;
  formats?: Record<string, string>;
  currency?: string;
  timeZone?: string;
}

export function optionsOf(w: ApiWidget): WidgetOptions {
  const o = (w.options ?? {}) as Record<string, unknown>;
  return {
    ...(typeof o.x === 'string' ? { x: o.x } : {}),
    ...(Array.isArray(o.y) ? { y: o.y.filter((v): v is string => typeof v === 'string') } : {}),
    ...(typeof o.yCategory === 'string' ? { yCategory: o.yCategory } : {}),
    ...(typeof o.markdown === 'string' ? { markdown: o.markdown } : {}),
    ...(typeof o.unit === 'string' ? { unit: o.unit } : {}),
    ...(Array.isArray(o.y2) ? { y2: o.y2.filter((v): v is string => typeof v === 'string') } : {}),
    ...(typeof o.format === 'string' ? { format: o.format } : {}),
    ...(o.formats && typeof o.formats === 'object' && !Array.isArray(o.formats)
      ? {
          formats: Object.fromEntries(
            Object.entries(o.formats as Record<string, unknown>).filter(
              (e): e is [string, string] => typeof e[1] === 'string',
            ),
          ),
        }
      : {}),
    ...(typeof o.currency === 'string' ? { currency: o.currency } : {}),
    ...(typeof o.timeZone === 'string' ? { timeZone: o.timeZone } : {}),
  };
}

/** Numbers arrive as numbers, or as strings for bigint and decimal (every digit kept): both count as numeric. */
export const toNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

const isNumericColumn = (r: ApiQueryResult, c: string) =>
  r.rows.length > 0 && r.rows.every((row) => row[c] === null || toNumber(row[c]) !== undefined);

/** The category (or time) column and the value columns: the widget's choice, else the first column and the numeric others. */
export function seriesColumns(r: ApiQueryResult, o: WidgetOptions): { x: string | undefined; y: string[] } {
  const x = o.x && r.columns.includes(o.x) ? o.x : r.columns[0];
  const chosen = (o.y ?? []).filter((c) => r.columns.includes(c));
  // Right-axis columns are values too, also when the value columns are chosen without them.
  const right = (o.y2 ?? []).filter((c) => r.columns.includes(c) && c !== x && !chosen.includes(c));
  const y = chosen.length > 0 ? [...chosen, ...right] : r.columns.filter((c) => c !== x && isNumericColumn(r, c));
  return { x, y };
}

/**
 * A heatmap's columns: x across (the widget's, else the first column), the row category (the widget's `yCategory`,
 * else the first other column that is not numeric, else the second column) and the value coloured (the widget's first
 * value column, else the first other numeric column).
 */
export function heatmapColumns(r: ApiQueryResult, o: WidgetOptions) {
  const x = o.x && r.columns.includes(o.x) ? o.x : r.columns[0];
  const others = r.columns.filter((c) => c !== x);
  const category =
    o.yCategory && others.includes(o.yCategory)
      ? o.yCategory
      : (others.find((c) => !isNumericColumn(r, c)) ?? others[0]);
  const rest = others.filter((c) => c !== category);
  const value = (o.y ?? []).find((c) => rest.includes(c)) ?? rest.find((c) => isNumericColumn(r, c));
  return { x, category, value };
}

/** Why a chart of this result would be empty (no rows, or no value column), or undefined when it has something to draw. */
export function nothingToPlot(r: ApiQueryResult, o: WidgetOptions, type = ''): string | undefined {
  if (r.rows.length === 0) return 'the query returned no rows.';
  if (type === 'heatmap') {
    const h = heatmapColumns(r, o);
    if (h.category && h.value) return undefined;
    return "nothing to plot: a heatmap needs three columns, the columns' category, the rows' category and a column of numbers.";
  }
  const { x, y } = seriesColumns(r, o);
  if (y.length > 0) return undefined;
  const others = r.columns.filter((c) => c !== x);
  return others.length === 0
    ? `nothing to plot: the query returns only "${x}", which is the category. Add a column of numbers to it.`
    : `nothing to plot: no column besides "${x}" holds numbers. Choose the value columns in the widget's settings, or return numbers.`;
}

export const show = (v: unknown) =>
  v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
