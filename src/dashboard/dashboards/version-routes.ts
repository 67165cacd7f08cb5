import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { sendWithTag } from './etag.ts';
import { restoreVersion } from './manage.ts';
import {
  Full,
  IfMatchHeaders,
  VersionDetail,
  VersionListQuery,
  VersionParams,
  VersionPosition,
  VersionSummary,
} from './schemas.ts';
import { getVersion, listVersions } from './store.ts';
import { version, versionSummary } from './view.ts';

const tags = ['dashboards'];

/** A dashboard's versions (viewers) and bringing an earlier one back (editors). */
export function registerVersionRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/dashboards/:id/versions',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDashboardVersions',
        tags,
        security: bearer,
        summary: 'Earlier and current versions, newest first',
        params: IdParams,
        querystring: VersionListQuery,
        response: { 200: pageOf(VersionSummary), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const d = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      const { limit, cursor } = request.query;
      const rows = await listVersions(ctx.db, d.id, decodeCursor(cursor, VersionPosition)?.[0], limit + 1);
      return toPage(rows, limit, (v) => [v.version], versionSummary);
    },
  );

  app.get(
    '/api/v1/dashboards/:id/versions/:version',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDashboardVersion',
        tags,
        security: bearer,
        summary: 'One version of a dashboard, with its definition',
        params: VersionParams,
        response: { 200: VersionDetail, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const d = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      const v = await getVersion(ctx.db, d.id, request.params.version);
      if (!v) throw notFound('version');
      return version(v);
    },
  );

  app.post(
    '/api/v1/dashboards/:id/versions/:version/restore',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'restoreDashboardVersion',
        tags,
        security: bearer,
        summary: "Bring back an earlier version's title, description and definition as a new version (the slug stays)",
        params: VersionParams,
        headers: IfMatchHeaders,
        response: { 200: Full, ...errorResponses(400, 401, 403, 404, 412, 429) },
      },
    },
    async (request, reply) => {
      const { id, version: restored } = request.params;
      return sendWithTag(reply, await restoreVersion(ctx, request, id, restored));
    },
  );
}
