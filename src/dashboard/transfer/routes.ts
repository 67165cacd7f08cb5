import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { SlugTaken, getDashboard } from '../dashboards/store.ts';
import { conflict, notFound, validation } from '../errors.ts';
import { listDataSources } from '../datasources/store.ts';
import { applyDashboard } from '../provision/apply.ts';
import { ProvisioningError } from '../provision/format.ts';
import { IdParams, bearer, errors } from '../schemas.ts';
import { portableDashboard } from './portable.ts';
import { Bundle, ImportBody, Imported } from './schemas.ts';

const tags = ['dashboards'];
/**
 * Export and import (Grafana's dashboard JSON, Metabase's serialization): a dashboard leaves as a provisioning
 * bundle with data sources named by slug, and comes back into any tenant whose sources have those slugs.
 */
export function registerTransferRoutes(app: App, ctx: DashboardContext): void {
  const { db } = ctx;

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
        response: { 200: Bundle, ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await getDashboard(db, currentUser(request).tenantId, request.params.id);
      if (!row) throw notFound('dashboard');
      reply.header('content-disposition', `attachment; filename="${row.slug}.dashboard.json"`);
      return { dashboards: [await portableDashboard(db, row)] };
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
        response: { 200: Imported, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      const { dashboards, dataSources, tenant } = request.body;
      if (dataSources !== undefined)
        throw validation(
          'dataSources: data sources are not imported (their connection URLs are secrets): an admin adds them under Data sources with the slugs the dashboards name, or an operator provisions them',
        );
      if (tenant !== undefined) throw validation('tenant: an import goes into your own tenant; remove the field');
      const seen = new Set<string>();
      dashboards.forEach((d, i) => {
        if (seen.has(d.slug)) throw validation(`dashboards[${i}].slug: "${d.slug}" appears twice in the import`);
        seen.add(d.slug);
      });
      const results = await db
        .transaction(async (tx) => {
          if (!request.query.overwrite) {
            const { rows } = await tx.query<{ slug: string }>(
              'SELECT slug FROM dashboards WHERE tenant_id = $1 AND slug = ANY($2::text[]) ORDER BY slug',
              [me.tenantId, [...seen]],
            );
            if (rows.length)
              throw conflict(
                `a dashboard with slug ${rows.map((r) => `"${r.slug}"`).join(', ')} already exists in this tenant; import with overwrite=true to replace it (a new version), or change the slug`,
              );
          }
          const slugToId = new Map((await listDataSources(tx, me.tenantId, {})).map((s) => [s.slug, s.id]));
          const out = [];
          for (const [i, d] of dashboards.entries()) {
            const { row, outcome } = await applyDashboard(
              tx,
              { tenantId: me.tenantId, bundle: {}, origin: 'import', mode: 'sync', userId: me.id, role: me.role },
              d,
              `dashboards[${i}]`,
              slugToId,
            );
            out.push({ id: row!.id, slug: row!.slug, title: row!.title, version: row!.version, outcome });
          }
          return out;
        })
        .catch((err: unknown) => {
          if (err instanceof ProvisioningError)
            throw validation(err.field ? `${err.field}: ${err.problem}` : err.problem);
          // Another import or create took the slug between the check and the insert.
          if (err instanceof SlugTaken) throw conflict(err.message);
          throw err;
        });
      return { dashboards: results };
    },
  );
}
