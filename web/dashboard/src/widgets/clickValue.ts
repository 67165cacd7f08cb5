import type { ApiQueryResult } from '../api/types.ts';
import { heatmapColumns, seriesColumns, show, toNumber, type WidgetOptions } from './data.ts';

/**
 * What clicking a value of a widget does, as the page carries it out (the definition's `widget.click`): `filter` sets
 * a dashboard parameter (cross-filtering), `link` opens an address made from the value (drill-through). `column` is
 * the column the value is read from, when the widget names one.
 */
export type ClickAction =
  | { kind: 'filter'; column?: string | undefined; label: string; set: (value: string) => void }
  | { kind: 'link'; column?: string | undefined; href: (value: string) => string | undefined };

/** What ECharts says of a clicked item: its index in the series' data, its name and its datum. */
export interface ClickedPoint {
  dataIndex: number;
  name?: string | undefined;
  data?: unknown;
}

/** The column a click reads: the one the widget names when the rows have it, else the category (a table's first). */
export function clickColumn(type: string, r: ApiQueryResult, o: WidgetOptions, named?: string): string | undefined {
  if (named !== undefined) return r.columns.includes(named) ? named : undefined;
  if (type === 'table' || type === 'stat' || type === 'gauge') return r.columns[0];
  if (type === 'heatmap') return heatmapColumns(r, o).x;
  return seriesColumns(r, o).x;
}

/** A value to filter by or link with: NULL is no value (no parameter can hold it), anything else as the table shows it. */
export const clickText = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : show(v));

/**
 * The row a clicked chart item stands for. Every series holds one item per row, in the rows' order (chartOption.ts),
 * except a pie (its slices may be summed into "Other", which is no single row: none), a heatmap (only the rows with a
 * number are cells) and a gauge (the first row).
 */
export function clickedRow(
  type: string,
  r: ApiQueryResult,
  o: WidgetOptions,
  p: ClickedPoint,
): Record<string, unknown> | undefined {
  if (type === 'pie') {
    if ((p.data as { held?: number } | undefined)?.held) return undefined;
    const x = seriesColumns(r, o).x;
    return x === undefined ? undefined : r.rows.find((row) => show(row[x]) === p.name);
  }
  if (type === 'heatmap') {
    const { value } = heatmapColumns(r, o);
    return value === undefined ? undefined : r.rows.filter((row) => toNumber(row[value]) !== undefined)[p.dataIndex];
  }
  if (type === 'gauge') return r.rows[0];
  return r.rows[p.dataIndex];
}

/** The value a click on a chart item gives, or undefined ("Other", NULL, a column the rows lack). */
export function clickedValue(
  type: string,
  r: ApiQueryResult,
  o: WidgetOptions,
  p: ClickedPoint,
  named?: string,
): string | undefined {
  const column = clickColumn(type, r, o, named);
  const row = clickedRow(type, r, o, p);
  return column === undefined || row === undefined ? undefined : clickText(row[column]);
}

/**
 * A drill-through address: the template with the value URL-encoded in place of each `{value}`. The service only
 * stores templates whose scheme and host come before the value; this checks the address made once more and answers
 * it only when it is http(s) or a path of this console (one `/`), else undefined.
 */
export function linkFor(template: string, value: string): string | undefined {
  if (!template.includes('{value}')) return undefined;
  const href = template.replaceAll('{value}', encodeURIComponent(value));
  if (/^\/(?![/\\])/.test(href)) return href;
  const parsed = URL.parse(href);
  return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed.href : undefined;
}

/** A path of this console opens in the page; another site in a new tab, without the console as its opener or referrer. */
export const opensOutside = (href: string) => !href.startsWith('/');

export function openLink(href: string): void {
  if (opensOutside(href)) window.open(href, '_blank', 'noopener,noreferrer');
  else location.assign(href);
}
