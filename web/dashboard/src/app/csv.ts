import Papa from 'papaparse';
import type { ApiQueryResult } from '../api/types.ts';
import { slugify } from './slug.ts';

/**
 * A result as RFC 4180 CSV with a header row, as Redash's and Grafana's "Download CSV" give it: NULL is an empty
 * field, JSON values are their JSON text. A cell starting with = + - @ is prefixed with ' (escapeFormulae), so a
 * value from the database cannot become a formula when the file is opened in a spreadsheet (CSV injection).
 */
export function resultCsv(result: ApiQueryResult): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : v);
  return Papa.unparse(
    { fields: result.columns, data: result.rows.map((r) => result.columns.map((c) => cell(r[c]))) },
    { escapeFormulae: true, newline: '\r\n' },
  );
}

/** A file name from a title: letters, digits and hyphens, with the date, e.g. `sales-by-region-2026-11-26.csv`. */
export function csvName(title: string): string {
  return `${slugify(title, 'results', 80)}-${new Date().toISOString().slice(0, 10)}.csv`;
}
