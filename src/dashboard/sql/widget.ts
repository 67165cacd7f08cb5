import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import type { WidgetValue } from '../dashboards/definition.ts';
import { notFound, validation } from '../errors.ts';
import { dataSourceOf, savedQueryOf } from '../lookup.ts';
import { clientGoneSignal } from './client-gone.ts';
import { currentUser } from '../auth/authenticate.ts';
import { DEFAULT_MAX_ROWS } from './execute.ts';
import { namedColumnsResult } from './results.ts';
import { runAndAudit, type RunContext } from './run.ts';
import { runKey, type SharedResult } from './shared-results.ts';
import { scanSql, type Dialect } from './sql-lexer.ts';

export interface WidgetRunBody {
  params?: object | undefined;
  maxRows?: number | undefined;
  /** Read the rows again even if the widget's cached result is still fresh. */
  refresh?: boolean | undefined;
}

/**
 * Runs a widget of a saved dashboard as stored: its SQL or saved query, on the dashboard's tenant's source, with only
 * the parameter values the statement names. For the signed-in route (dashboards/widget-routes.ts) and for public
 * links (sharing/public-routes.ts), whose visitor is recorded as nobody. Identical runs share one trip and the
 * widget's `cacheSeconds` keeps the result (shared-results.ts).
 */
export async function runWidget(
  ctx: RunContext,
  request: FastifyRequest,
  reply: FastifyReply,
  dashboard: DashboardRow,
  widgetId: string,
  body: WidgetRunBody,
  publicLink = false,
): Promise<SharedResult> {
  const widget = widgetOf(dashboard, widgetId);
  const stored = await storedQueryOf(ctx.db, dashboard.tenant_id, widget);
  const source = await dataSourceOf(ctx.db, dashboard.tenant_id, stored.dataSourceId);
  const { params = {}, maxRows = DEFAULT_MAX_ROWS } = body;
  const parameters = valuesUsedBy(stored.query, source.type, params as Record<string, unknown>);
  const origin = {
    kind: 'widget' as const,
    dashboardId: dashboard.id,
    widgetId: widget.id,
    ...(stored.savedQueryId ? { savedQueryId: stored.savedQueryId } : {}),
    ...(publicLink ? { publicLink: true as const } : {}),
  };
  const key = runKey({
    sourceId: source.id,
    sourceVersion: source.version,
    query: stored.query,
    parameters,
    maxRows,
    role: request.user ? currentUser(request).role : 'link-visitor',
  });
  const ttlMs = cacheSecondsOf(widget) * 1000;
  // The one trip is recorded in the audit log as the caller who made it; callers it answered too are not.
  return ctx.sql.shared.run(key, { ttlMs, refresh: body.refresh, signal: clientGoneSignal(reply) }, (signal) =>
    runAndAudit(ctx, request, source, { query: stored.query, parameters, maxRows, signal }, origin),
  );
}

/** The widget's cache time in seconds (0: every view reads the rows, though identical runs at once still share one). */
const cacheSecondsOf = (w: WidgetValue) => w.cacheSeconds ?? 0;

/** The answer of a widget run: Document 1's result, when its rows were read and what answered. */
export const widgetAnswer = (r: SharedResult) => ({
  ...namedColumnsResult(r.result),
  cachedAt: r.readAt.toISOString(),
  served: r.served,
});

export function widgetOf(dashboard: DashboardRow, widgetId: string): WidgetValue {
  const widget = dashboard.definition.widgets.find((w) => w.id === widgetId);
  if (!widget) throw notFound('widget');
  return widget;
}

/** The widget's statement and source: its saved query's, or its own inline SQL's. */
export async function storedQueryOf(
  db: Queryable,
  tenantId: number,
  widget: WidgetValue,
): Promise<{ query: string; dataSourceId: number; savedQueryId?: number }> {
  if (widget.savedQueryId !== undefined) {
    const saved = await savedQueryOf(db, tenantId, widget.savedQueryId);
    return { query: saved.query, dataSourceId: saved.data_source_id, savedQueryId: saved.id };
  }
  if (widget.query !== undefined && widget.dataSourceId !== undefined)
    return { query: widget.query, dataSourceId: widget.dataSourceId };
  throw validation(`widget "${widget.id}" has no query to run`);
}

/**
 * The supplied values whose names the statement uses (in its code, not in strings or comments). A dashboard's
 * parameters go to every widget, but the binder refuses a value the statement does not name, so each widget's
 * query gets only its own.
 */
export function valuesUsedBy(sql: string, dialect: Dialect, values: Record<string, unknown>): Record<string, unknown> {
  const named = new Set<string>();
  for (const r of scanSql(sql, dialect)) {
    if (r.kind !== 'code') continue;
    for (const m of sql.slice(r.start, r.end).matchAll(/(?<![:\w$@])[:@]([A-Za-z_][A-Za-z0-9_]*)/g)) named.add(m[1]!);
  }
  return Object.fromEntries(Object.entries(values).filter(([k]) => named.has(k)));
}
