import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { clientGoneSignal } from '../datasources/client-gone.ts';
import { DEFAULT_MAX_ROWS, type ExecuteResult } from '../datasources/execute.ts';
import { MaxRows, Parameters, QueryResult } from '../datasources/schemas.ts';
import type { DataSourceService } from '../datasources/service.ts';
import { scanSql, type Dialect } from '../datasources/sql-lexer.ts';
import { getDataSource } from '../datasources/store.ts';
import { notFound, validation } from '../errors.ts';
import { getSavedQuery } from '../queries/store.ts';
import { namedColumnsResult, runStored, sendJson } from '../queries/run.ts';
import { IdParams, bearer, errors } from '../schemas.ts';
import { getDashboard, type DashboardRow } from './store.ts';

export const WidgetParams = Type.Object({
  ...IdParams.properties,
  widgetId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

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

/**
 * `POST /api/v1/dashboards/:id/widgets/:widgetId/run`: draws a widget of the saved dashboard. Viewers may run it
 * (as they may run saved queries): the SQL is the one an editor stored in the dashboard, and the caller only
 * gives parameter values, which are bound, never spliced. This is how a viewer sees a dashboard's charts
 * without being able to write SQL (`POST /query` stays an editor's route).
 */
export function registerWidgetRunRoute(app: App, ctx: DashboardContext, sources: DataSourceService): void {
  const { db } = ctx;
  app.post(
    '/api/v1/dashboards/:id/widgets/:widgetId/run',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'runDashboardWidget',
        tags: ['dashboards'],
        security: bearer,
        summary:
          "Run a widget's query (its SQL or saved query) with the dashboard's parameter values (viewer and above)",
        params: WidgetParams,
        body: Type.Object({ params: Type.Optional(Parameters), maxRows: MaxRows }, { additionalProperties: false }),
        response: { 200: QueryResult, ...errors(400, 401, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const dashboard = await getDashboard(db, me.tenantId, request.params.id);
      if (!dashboard) throw notFound('dashboard');
      return sendJson(
        reply,
        namedColumnsResult(
          await runStoredWidget(ctx, sources, request, reply, dashboard, request.params.widgetId, request.body ?? {}),
        ),
      );
    },
  );
}

/**
 * Runs a widget of a saved dashboard as stored: its SQL or saved query, on the dashboard's tenant's source, with only
 * the parameter values the statement names. For the signed-in route above and for public links (src/dashboard/sharing).
 */
export async function runStoredWidget(
  ctx: DashboardContext,
  sources: DataSourceService,
  request: FastifyRequest,
  reply: FastifyReply,
  dashboard: DashboardRow,
  widgetId: string,
  body: { params?: object | undefined; maxRows?: number | undefined },
  publicLink = false,
): Promise<ExecuteResult> {
  const { db } = ctx;
  const tenantId = dashboard.tenant_id;
  const widget = dashboard.definition.widgets.find((w) => w.id === widgetId);
  if (!widget) throw notFound('widget');
  const { params = {}, maxRows = DEFAULT_MAX_ROWS } = body;
  let query: string;
  let dataSourceId: number;
  let savedQueryId: number | undefined;
  if (widget.savedQueryId !== undefined) {
    const saved = await getSavedQuery(db, tenantId, widget.savedQueryId);
    if (!saved) throw notFound('saved query');
    ({ query } = saved);
    dataSourceId = saved.data_source_id;
    savedQueryId = saved.id;
  } else if (widget.query !== undefined && widget.dataSourceId !== undefined) {
    query = widget.query;
    dataSourceId = widget.dataSourceId;
  } else {
    throw validation(`widget "${widget.id}" has no query to run`);
  }
  const source = await getDataSource(db, tenantId, dataSourceId);
  if (!source) throw notFound('data source');
  const parameters = valuesUsedBy(query, source.type, params as Record<string, unknown>);
  const origin = {
    kind: 'widget' as const,
    dashboardId: dashboard.id,
    widgetId: widget.id,
    ...(savedQueryId ? { savedQueryId } : {}),
    ...(publicLink ? { publicLink: true as const } : {}),
  };
  return runStored(
    db,
    sources,
    request,
    source,
    { query, parameters, maxRows, signal: clientGoneSignal(reply) },
    origin,
  );
}
