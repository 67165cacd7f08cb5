import { resultCsv } from '../../../web/dashboard/src/app/csv.ts';
import { actingAs } from '../alerts/run-rule.ts';
import type { AuthUser } from '../auth/user.ts';
import type { TIME_RANGES, DefinitionValue } from '../dashboards/definition.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { dataSourceOf } from '../lookup.ts';
import { namedColumnsResult } from '../sql/results.ts';
import { runAndAudit, type RunContext } from '../sql/run.ts';
import { storedQueryOf, valuesUsedBy } from '../sql/widget.ts';

/** Rows per widget in a subscription's CSV (Metabase's attachment cap); the mail says when a widget had more. */
export const CSV_MAX_ROWS = 2000;

const RANGE_MS: Record<(typeof TIME_RANGES)[number], number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
  '365d': 365 * 86_400_000,
};

/**
 * The values the widgets' queries get, as the dashboard page computes them (web/dashboard parameters.ts): the
 * subscription's fixed value, else the parameter's default, else its first choice or the last 24 hours; a time range
 * as `<name>_from` and `<name>_to` ending at the send.
 */
export function queryValues(
  parameters: NonNullable<DefinitionValue['parameters']>,
  fixed: Record<string, string>,
  now = Date.now(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters) {
    const v =
      fixed[p.name] ??
      p.default ??
      (p.type === 'choice' ? (p.choices?.[0] ?? '') : p.type === 'time_range' ? '24h' : '');
    if (p.type === 'time_range') {
      const ms = RANGE_MS[v as keyof typeof RANGE_MS] ?? RANGE_MS['24h'];
      out[`${p.name}_from`] = new Date(now - ms).toISOString();
      out[`${p.name}_to`] = new Date(now).toISOString();
    } else out[p.name] = v;
  }
  return out;
}

export interface WidgetCsv {
  widgetId: string;
  title: string;
  filename: string;
  csv: string;
  rows: number;
  truncated: boolean;
  error?: string;
}

/**
 * Each widget's data as CSV, run as the owner through the path the dashboard page uses: a widget that fails is
 * named with its error in the mail rather than dropping the whole subscription.
 */
export async function widgetCsvs(
  ctx: RunContext,
  owner: AuthUser,
  dashboard: DashboardRow,
  subscriptionId: number,
  fixed: Record<string, string>,
): Promise<WidgetCsv[]> {
  const values = queryValues(dashboard.definition.parameters ?? [], fixed);
  const out: WidgetCsv[] = [];
  const used = new Set<string>();
  for (const widget of dashboard.definition.widgets) {
    if (widget.query === undefined && widget.savedQueryId === undefined) continue;
    const title = widget.title ?? widget.id;
    let base =
      title
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .toLowerCase() || widget.id;
    if (used.has(base)) base = `${base}-${widget.id}`;
    used.add(base);
    const entry = { widgetId: widget.id, title, filename: `${base}.csv` };
    try {
      const stored = await storedQueryOf(ctx.db, owner.tenantId, widget);
      const source = await dataSourceOf(ctx.db, owner.tenantId, stored.dataSourceId);
      const parameters = valuesUsedBy(stored.query, source.type, values);
      const result = await runAndAudit(
        ctx,
        actingAs(owner),
        source,
        { query: stored.query, parameters, maxRows: CSV_MAX_ROWS },
        { kind: 'subscription', subscriptionId, dashboardId: dashboard.id, widgetId: widget.id },
      );
      const named = namedColumnsResult(result);
      out.push({ ...entry, csv: resultCsv(named), rows: named.rowCount, truncated: named.truncated });
    } catch (err) {
      out.push({ ...entry, csv: '', rows: 0, truncated: false, error: (err as Error).message });
    }
  }
  return out;
}
