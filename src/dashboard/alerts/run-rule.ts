import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import type { AuthUser, Plan } from '../auth/user.ts';
import type { Role } from '../auth/roles.ts';
import { queryValues } from '../dashboards/parameter-values.ts';
import { dashboardFor, dataSourceOf, savedQueryOf } from '../lookup.ts';
import { runAndAudit, type RunContext } from '../sql/run.ts';
import { storedQueryOf, valuesUsedBy, widgetOf } from '../sql/widget.ts';
import type { Outcome } from './condition.ts';
import type { AlertRuleRow } from './store.ts';

/** Rows an alert's query may answer: the first row's value decides, the count says whether there was data. */
const ALERT_MAX_ROWS = 1000;

/** The person a rule or a subscription acts as, read fresh: a deactivated owner's rules stop with an error. */
export async function ownerOf(db: Queryable, tenantId: number, userId: number): Promise<AuthUser | undefined> {
  const r = await db.query<{ id: number; tenant_id: number; role: Role; email: string; plan: Plan }>(
    `SELECT u.id::int AS id, u.tenant_id::int AS tenant_id, u.role, u.email, t.plan
       FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.id = $1 AND u.tenant_id = $2 AND u.active`,
    [userId, tenantId],
  );
  const u = r.rows[0];
  return u && { id: u.id, tenantId: u.tenant_id, role: u.role, email: u.email, plan: u.plan };
}

/**
 * The audit record of a run names who ran it from `request.user`: a scheduled run has no request, so it stands in
 * one carrying only the owner, and the run goes through the same function (and rules) as a dashboard's.
 */
export const actingAs = (user: AuthUser): FastifyRequest => ({ user }) as unknown as FastifyRequest;

/**
 * Runs a rule's query with its owner's rights, through the path dashboards use: a saved query as stored, or a
 * widget of a dashboard of the owner's tenant (its saved query or its stored SQL, which the owner may run as any
 * viewer may), with the rule's parameter values; a parameter the query needs and the rule lacks is its error. Every way it can fail is an outcome (the rule's error state), never a throw.
 */
export async function evaluateRuleQuery(ctx: RunContext, rule: AlertRuleRow, signal: AbortSignal): Promise<Outcome> {
  try {
    const owner = await ownerOf(ctx.db, rule.tenant_id, rule.owner_id);
    if (!owner) return { kind: 'error', message: 'the rule owner is no longer an active user' };
    const request = actingAs(owner);
    let result;
    if (rule.saved_query_id !== null) {
      const saved = await savedQueryOf(ctx.db, owner.tenantId, rule.saved_query_id);
      const source = await dataSourceOf(ctx.db, owner.tenantId, saved.data_source_id);
      const parameters = valuesUsedBy(saved.query, source.type, rule.parameters);
      const options = { query: saved.query, parameters, maxRows: ALERT_MAX_ROWS, signal };
      result = await runAndAudit(ctx, request, source, options, {
        kind: 'alert',
        alertRuleId: rule.id,
        savedQueryId: saved.id,
      });
    } else {
      // With the owner's rights (dashboards/access.ts): an owner taken off a restricted dashboard's list stops the rule.
      const dashboard = await dashboardFor(ctx.db, owner, rule.dashboard_id!).catch(() => undefined);
      if (!dashboard)
        return { kind: 'error', message: 'the dashboard no longer exists, or the rule owner may no longer see it' };
      const widget = widgetOf(dashboard, rule.widget_id!);
      const stored = await storedQueryOf(ctx.db, owner.tenantId, widget);
      const source = await dataSourceOf(ctx.db, owner.tenantId, stored.dataSourceId);
      const fixed = Object.fromEntries(Object.entries(rule.parameters).map(([k, v]) => [k, String(v)]));
      const values = queryValues(dashboard.definition.parameters ?? [], fixed);
      const parameters = valuesUsedBy(stored.query, source.type, values);
      const options = { query: stored.query, parameters, maxRows: ALERT_MAX_ROWS, signal };
      result = await runAndAudit(ctx, request, source, options, {
        kind: 'alert',
        alertRuleId: rule.id,
        dashboardId: dashboard.id,
        widgetId: widget.id,
      });
    }
    return ruleValue(
      result.rows,
      result.columns.map((c) => c.name),
      rule.value_column,
    );
  } catch (err) {
    return { kind: 'error', message: err instanceof HttpError ? err.message : 'the query could not be run' };
  }
}

/** The first row's value in the named column, else its first numeric column; no row or a null is no data. */
export function ruleValue(rows: Record<string, unknown>[], columns: string[], column: string | null): Outcome {
  const first = rows[0];
  if (!first) return { kind: 'nodata', rows: 0 };
  if (column !== null && !columns.includes(column))
    return { kind: 'error', message: `the query has no column "${column}"` };
  const name = column ?? columns.find((c) => isNumeric(first[c])) ?? columns[0];
  const cell = name === undefined ? null : first[name];
  if (cell === null || cell === undefined) return { kind: 'nodata', rows: rows.length };
  if (!isNumeric(cell)) return { kind: 'error', message: `the value of "${name}" is not a number` };
  return { kind: 'value', value: Number(cell), rows: rows.length };
}

function isNumeric(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v === 'bigint') return true;
  return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v));
}
