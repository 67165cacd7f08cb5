import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { importDashboards } from './import.ts';
import { portableDashboard } from './portable.ts';
import { Bundle, ImportBody, Imported } from './schemas.ts';

const tags = ['dashboards'];
/**
 * Export and import (Grafana's dashboard JSON, Metabase's serialization): a dashboard leaves as a provisioning
 * bundle with data sources named by slug, and comes back into any tenant whose sources have those slugs.
 */
export function registerTransferRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/dashboards/:id/export',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'exportDashboard',
        tags,
        security: bearer,
        summary:
          'The dashboard as a provisioning bundle: data sources by slug, saved queries inlined; import it elsewhere or put it in DASHBOARD_PROVISIONING_DIR',
        params: IdParams,
        response: { 200: Bundle, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      reply.header('content-disposition', `attachment; filename="${row.slug}.dashboard.json"`);
      return { dashboards: [await portableDashboard(ctx.db, row)] };
    },
  );

  app.post(
    '/api/v1/dashboards/import',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'importDashboards',
        tags,
        security: bearer,
        summary:
          "Make dashboards from an export (or a provisioning file's dashboards); their data sources are this tenant's with the same slugs. A slug already taken is 409 unless overwrite=true, which makes a new version",
        querystring: Type.Object({ overwrite: Type.Boolean({ default: false }) }, { additionalProperties: false }),
        body: ImportBody,
        response: { 200: Imported, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request) => ({
      dashboards: await importDashboards(ctx, request, request.body, request.query.overwrite),
    }),
  );
}
