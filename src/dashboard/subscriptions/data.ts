import { resultCsv } from '../../../web/dashboard/src/app/csv.ts';
import { actingAs } from '../alerts/run-rule.ts';
import type { AuthUser } from '../auth/user.ts';
import { queryValues } from '../dashboards/parameter-values.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { dataSourceOf } from '../lookup.ts';
import { namedColumnsResult } from '../sql/results.ts';
import { runAndAudit, type RunContext } from '../sql/run.ts';
import { storedQueryOf, valuesUsedBy } from '../sql/widget.ts';

/** Rows per widget in a subscription's CSV (Metabase's attachment cap); the mail says when a widget had more. */
export const CSV_MAX_ROWS = 2000;

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
