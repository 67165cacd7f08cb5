import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { etagOf, notModified, sendWithTag } from './etag.ts';
import { DashboardPage, Full, ListDashboardsQuery } from './schemas.ts';
import { listDashboards } from './store.ts';
import { listItem } from './view.ts';

const tags = ['dashboards'];

/** The tenant's dashboards, a page at a time, and one dashboard with its ETag (viewers). */
export function registerDashboardReadRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/dashboards',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDashboards',
        tags,
        security: bearer,
        summary: "Dashboards of the tenant, without their definitions; by tag, or only the caller's favourites",
        querystring: ListDashboardsQuery,
        response: { 200: DashboardPage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { page, perPage, search, sort, tag, favourites } = request.query;
      const order = request.query.order ?? (sort === 'title' ? 'asc' : 'desc');
      const term = search?.trim() || undefined;
      const who = currentUser(request);
      const { rows, total } = await listDashboards(ctx.db, {
        who,
        page,
        perPage,
        search: term,
        tag: tag?.trim() || undefined,
        favouritesOf: favourites ? who.id : undefined,
        sort,
        order,
      });
      return { data: rows.map(listItem), meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } };
    },
  );

  app.get(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDashboard',
        tags,
        security: bearer,
        summary: 'A dashboard with its definition; ETag names its version',
        params: IdParams,
        response: { 200: Full, 304: Type.Null(), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      if (!notModified(request, row)) return sendWithTag(reply, row);
      reply.header('etag', etagOf(row));
      return reply.code(304).send(null);
    },
  );
}
