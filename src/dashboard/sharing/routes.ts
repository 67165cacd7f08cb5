import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn, LINK_VISITOR } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { actor, recordAudit } from '../audit/record.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import { runStoredWidget, WidgetParams } from '../dashboards/run-widget.ts';
import { getDashboard } from '../dashboards/store.ts';
import { MaxRows, Parameters, QueryResult } from '../datasources/schemas.ts';
import type { DataSourceService } from '../datasources/service.ts';
import { notFound } from '../errors.ts';
import { namedColumnsResult, sendJson } from '../queries/run.ts';
import { IdParams, bearer, errors } from '../schemas.ts';
import { PublicDashboard, Share } from './schemas.ts';
import { deleteShare, ensureShare, findShare, shareByToken, shareToken, type ShareRow } from './store.ts';

const tags = ['sharing'];
/** A link's token: 32 random bytes in base64url. Anything else names no link, and is refused before a lookup. */
const TokenParams = Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }) });
const gone = () => notFound('shared dashboard (the link was turned off, or never existed)');

/**
 * Public links (Grafana's shared dashboards, Metabase's public links): an editor turns a link on for a dashboard and
 * anyone with it sees the charts, read-only, without signing in. The visitor gets the layout, titles and results,
 * never the SQL, the sources or the saved queries; each widget runs as stored, with only parameter values bound.
 * Visitors are rate limited per address (the free plan's limit) and their runs are audited as nobody's.
 */
export function registerSharingRoutes(app: App, ctx: DashboardContext, sources: DataSourceService): void {
  const { db, secretKey } = ctx;
  const linkOf = (row: ShareRow) => ({
    url: `${dashboardPublicUrl(ctx.config)}/public/${shareToken(secretKey, row)}`,
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
  });
  const dashboardOf = async (tenantId: number, id: number) => {
    const row = await getDashboard(db, tenantId, id);
    if (!row) throw notFound('dashboard');
    return row;
  };

  app.get(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'getDashboardShare',
        tags,
        security: bearer,
        summary: "The dashboard's public link, if it has one (editors)",
        params: IdParams,
        response: { 200: Share, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      await dashboardOf(me.tenantId, request.params.id);
      const row = await findShare(db, me.tenantId, request.params.id);
      return row ? { shared: true, ...linkOf(row) } : { shared: false };
    },
  );

  app.put(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'shareDashboard',
        tags,
        security: bearer,
        summary: 'Turn the public link on (201 with the link), or answer the link it already has (200)',
        params: IdParams,
        response: { 200: Share, 201: Share, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const { row, created } = await db.transaction(async (tx) => {
        const dashboard = await getDashboard(tx, me.tenantId, request.params.id, true);
        if (!dashboard) throw notFound('dashboard');
        const made = await ensureShare(tx, secretKey, me.tenantId, dashboard.id, me.id);
        if (made.created)
          await recordAudit(tx, {
            ...actor(request),
            action: 'dashboard.share',
            targetType: 'dashboard',
            targetId: dashboard.id,
            details: { title: dashboard.title },
          });
        return made;
      });
      return reply.code(created ? 201 : 200).send({ shared: true, ...linkOf(row) });
    },
  );

  app.delete(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'unshareDashboard',
        tags,
        security: bearer,
        summary: 'Turn the public link off: it stops working at once; turning sharing on again makes a new link',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      await db.transaction(async (tx) => {
        const dashboard = await getDashboard(tx, me.tenantId, request.params.id, true);
        if (!dashboard) throw notFound('dashboard');
        if (!(await deleteShare(tx, me.tenantId, dashboard.id))) throw notFound('public link');
        await recordAudit(tx, {
          ...actor(request),
          action: 'dashboard.unshare',
          targetType: 'dashboard',
          targetId: dashboard.id,
          details: { title: dashboard.title },
        });
      });
      return reply.code(204).send(null);
    },
  );

  const shared = async (token: string) => {
    const share = await shareByToken(db, token);
    const dashboard = share && (await getDashboard(db, share.tenant_id, share.dashboard_id));
    if (!dashboard) throw gone();
    return dashboard;
  };

  app.get(
    '/api/v1/public/dashboards/:token',
    {
      config: { access: LINK_VISITOR },
      schema: {
        operationId: 'getPublicDashboard',
        tags,
        summary:
          'A shared dashboard for anyone with its link: title, layout, parameters and widgets, without SQL or sources',
        params: TokenParams,
        response: { 200: PublicDashboard, ...errors(400, 404, 429) },
      },
    },
    async (request, reply) => {
      const d = await shared(request.params.token);
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const { layout, parameters, refreshSeconds, widgets } = d.definition;
      return {
        title: d.title,
        ...(d.description !== null ? { description: d.description } : {}),
        updatedAt: d.updated_at.toISOString(),
        definition: {
          layout,
          ...(parameters ? { parameters } : {}),
          ...(refreshSeconds !== undefined ? { refreshSeconds } : {}),
          widgets: widgets.map((w) => ({
            id: w.id,
            type: w.type,
            position: w.position,
            ...(w.title !== undefined ? { title: w.title } : {}),
            ...(w.options !== undefined ? { options: w.options } : {}),
            runs: w.query !== undefined || w.savedQueryId !== undefined,
          })),
        },
      };
    },
  );

  app.post(
    '/api/v1/public/dashboards/:token/widgets/:widgetId/run',
    {
      config: { access: LINK_VISITOR },
      schema: {
        operationId: 'runPublicDashboardWidget',
        tags,
        summary:
          "Run a shared dashboard's widget as stored, with the dashboard's parameter values (anyone with the link)",
        params: Type.Object({ ...TokenParams.properties, widgetId: WidgetParams.properties.widgetId }),
        body: Type.Object({ params: Type.Optional(Parameters), maxRows: MaxRows }, { additionalProperties: false }),
        response: { 200: QueryResult, ...errors(400, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const d = await shared(request.params.token);
      reply.header('cache-control', 'no-store');
      return sendJson(
        reply,
        namedColumnsResult(
          await runStoredWidget(ctx, sources, request, reply, d, request.params.widgetId, request.body ?? {}, true),
        ),
      );
    },
  );
}
