import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { decodeCursor, toPage } from '../../kit/paging.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { savedQueryOf } from '../lookup.ts';
import { IdParams, IdPosition, bearer } from '../schemas.ts';
import { SavedQuery, SavedQueryListQuery } from './schemas.ts';
import { listSavedQueries } from './store.ts';
import { savedQuery } from './view.ts';

const tags = ['queries'];

/** The tenant's saved queries and one of them (viewers). */
export function registerSavedQueryReadRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/queries',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listSavedQueries',
        tags,
        security: bearer,
        summary: 'Saved queries of the tenant, oldest first; `search` finds words in their name, description or SQL',
        querystring: SavedQueryListQuery,
        response: {
          200: Type.Object({ items: Type.Array(SavedQuery), next: Type.Union([Type.String(), Type.Null()]) }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { limit, cursor, dataSourceId, search } = request.query;
      const after = decodeCursor(cursor, IdPosition)?.[0] ?? 0;
      const rows = await listSavedQueries(ctx.db, currentUser(request).tenantId, {
        limit: limit + 1,
        after,
        dataSourceId,
        search,
      });
      return toPage(rows, limit, (r) => [r.id], savedQuery);
    },
  );

  app.get(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getSavedQuery',
        tags,
        security: bearer,
        summary: 'A saved query',
        params: IdParams,
        response: { 200: SavedQuery, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => savedQuery(await savedQueryOf(ctx.db, currentUser(request).tenantId, request.params.id)),
  );
}
