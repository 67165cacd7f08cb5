import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { actor, recordAudit, type AuditEntry } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DataSourceRow } from '../datasources/store.ts';
import { dataSourceOf, savedQueryOf } from '../lookup.ts';
import { checkSqlAuthor } from './authors.ts';
import type { ExecuteResult } from './execute.ts';
import type { RunOptions, SqlRunner } from './runner.ts';

/** What a run needs of the app: the database (sources, saved queries, the audit log) and the runner. */
export interface RunContext {
  db: Database;
  sql: SqlRunner;
}

/** Where a run's SQL came from, as its audit record says. */
export type RunOrigin =
  | { kind: 'adhoc' }
  | { kind: 'saved'; savedQueryId: number }
  | { kind: 'widget'; dashboardId: number; widgetId: string; savedQueryId?: number; publicLink?: true }
  | { kind: 'alert'; alertRuleId: number; savedQueryId?: number; dashboardId?: number; widgetId?: string }
  | { kind: 'subscription'; subscriptionId: number; dashboardId: number; widgetId: string }
  | { kind: 'parameter'; dashboardId: number; parameter: string };

/**
 * Runs SQL the signed-in caller wrote, on a source whose `sqlRole` allows them (authors.ts): every route that runs
 * ad-hoc SQL goes through here, so none can forget the rule. Refused before anything runs or is recorded.
 */
export function runAdHoc(
  ctx: RunContext,
  request: FastifyRequest,
  row: DataSourceRow,
  options: RunOptions,
): Promise<ExecuteResult> {
  checkSqlAuthor(currentUser(request), row, 'query');
  return runAndAudit(ctx, request, row, options, { kind: 'adhoc' });
}

/** Runs a saved query of the caller's tenant as stored, with the caller's parameter values only. */
export async function runSaved(
  ctx: RunContext,
  request: FastifyRequest,
  savedQueryId: number,
  options: Omit<RunOptions, 'query'>,
): Promise<ExecuteResult> {
  const { tenantId } = currentUser(request);
  const saved = await savedQueryOf(ctx.db, tenantId, savedQueryId);
  const row = await dataSourceOf(ctx.db, tenantId, saved.data_source_id);
  return runAndAudit(ctx, request, row, { ...options, query: saved.query }, { kind: 'saved', savedQueryId: saved.id });
}

/**
 * Runs a query and records who ran what on which data source, whether it succeeded or not: the statement, the
 * parameter names (never their values, which may be personal data), the row count or the error code. SQL someone
 * allowed already stored (a saved query, a widget: widget.ts) comes here without the authorship check.
 */
export async function runAndAudit(
  ctx: RunContext,
  request: FastifyRequest,
  row: DataSourceRow,
  options: RunOptions,
  origin: RunOrigin,
): Promise<ExecuteResult> {
  const record = runRecord(request, row, options, origin);
  // A run's record is written before the answer goes out, visible at once. On a read-only source its commit does not
  // wait for the WAL flush (docs/decisions.md, "query run records"): the run could change nothing that a record lost
  // in a crash of our database would leave unexplained. A writable source's run waits for it, as before.
  const commit = { flushWait: !row.read_only };
  try {
    const result = await ctx.sql.run(row, options);
    await recordAudit(ctx.db, record(outcomeOf(result)), commit);
    return result;
  } catch (err) {
    await recordAudit(ctx.db, record({ error: err instanceof HttpError ? err.code : 'INTERNAL_ERROR' }), commit).catch(
      () => {},
    );
    throw err;
  }
}

/** The audit record of a run, but for its outcome. A public link's visitor is nobody, in the source's tenant. */
function runRecord(request: FastifyRequest, row: DataSourceRow, options: RunOptions, origin: RunOrigin) {
  const who = request.user ? actor(request) : { tenantId: row.tenant_id, userId: null };
  const base = { ...origin, dataSourceId: row.id, query: options.query, parameters: Object.keys(options.parameters) };
  return (outcome: Record<string, unknown>): AuditEntry => ({
    ...who,
    action: 'query.run',
    targetType: 'datasource',
    targetId: row.id,
    details: { ...base, ...outcome },
  });
}

const outcomeOf = (r: ExecuteResult) => ({
  rowCount: r.rowCount,
  truncated: r.truncated,
  executionTimeMs: r.executionTimeMs,
});
