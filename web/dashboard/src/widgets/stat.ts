import type { ApiQueryResult } from '../api/types.ts';
import { seriesColumns, show, toNumber, type WidgetOptions } from './data.ts';

const format = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/** What a single-number widget shows: its value, the unit after it, and the column's name under it. */
export interface StatParts {
  value: string;
  unit?: string;
  label?: string;
}

/**
 * The first row's value column (the widget's first value column, else the first numeric one). The column's name is
 * left out when the unit already says it (`count(*) AS orders` with the unit "orders" read "50 orders orders").
 */
export function statParts(result: ApiQueryResult, options: WidgetOptions): StatParts {
  const { y } = seriesColumns(result, options);
  const column = y[0] ?? result.columns[0];
  const raw = column ? result.rows[0]?.[column] : undefined;
  const n = toNumber(raw);
  const value = raw === undefined ? 'No data' : n !== undefined ? format.format(n) : show(raw);
  const unit = options.unit?.trim() || undefined;
  const sameAsUnit = unit !== undefined && column?.trim().toLowerCase() === unit.toLowerCase();
  return {
    value,
    ...(unit && raw !== undefined ? { unit } : {}),
    ...(column && !sameAsUnit ? { label: column } : {}),
  };
}
