import type { ApiQueryResult } from '../../web/dashboard/src/api/types.ts';

/** A query's answer as the dashboard API gives it, holding these columns and rows: what a widget is drawn from. */
export const queryResult = (columns: string[], rows: Record<string, unknown>[]): ApiQueryResult => ({
  columns,
  rows,
  rowCount: rows.length,
  executionTimeMs: 1,
  truncated: false,
});
