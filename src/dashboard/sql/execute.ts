import type { DataSourcePool, DataSourceType, RunResult } from './driver.ts';
import { bindParameters, ParameterError } from './parameters.ts';
import { checkStatement, readOnlyViolation, StatementError } from './statement.ts';

export const DEFAULT_MAX_ROWS = 1000;
export const MAX_ROWS_LIMIT = 10_000;

export interface ExecuteRequest {
  type: DataSourceType;
  readOnly: boolean;
  query: string;
  parameters: Readonly<Record<string, unknown>>;
  maxRows: number;
  signal?: AbortSignal | undefined;
}

export interface ExecuteResult extends RunResult {
  executionTimeMs: number;
}

function checkValues(parameters: Readonly<Record<string, unknown>>, type: DataSourceType): void {
  for (const [name, value] of Object.entries(parameters)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) continue;
    if (
      Array.isArray(value) &&
      type === 'postgres' &&
      value.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    )
      continue;
    throw new ParameterError(
      type === 'postgres'
        ? `parameters.${name}: must be a string, number, boolean, null or an array of those`
        : `parameters.${name}: must be a string, number, boolean or null`,
    );
  }
}

/**
 * Everything a query goes through before and around the driver: the text checks (one statement, no transaction
 * control, reads only on a read-only source), parameter binding, then the run itself. Throws StatementError or
 * ParameterError (400) before anything reaches the database, DataSourceError from it.
 */
export async function executeQuery(pool: DataSourcePool, req: ExecuteRequest): Promise<ExecuteResult> {
  checkStatement(req.query, req.type);
  if (req.readOnly) {
    const why = readOnlyViolation(req.query, req.type);
    if (why)
      throw new StatementError(
        `query: this data source is read-only and only accepts reads (SELECT, WITH, VALUES, SHOW, EXPLAIN); ${why}`,
      );
  }
  checkValues(req.parameters, req.type);
  const bound = bindParameters(req.query, req.parameters, req.type);
  const started = performance.now();
  const result = await pool.run({ sql: bound.sql, values: bound.values, maxRows: req.maxRows, signal: req.signal });
  return { ...result, executionTimeMs: Math.round((performance.now() - started) * 100) / 100 };
}
