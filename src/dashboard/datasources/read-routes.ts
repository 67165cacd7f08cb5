import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { OPEN, signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dataSourceOf } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { ProviderSchema } from '../sql/schemas.ts';
import { DataSourceDetail, DataSourceListItem, DataSourceListQuery } from './schemas.ts';
import { listDataSources } from './store.ts';
import { detail, listItem } from './view.ts';

const tags = ['datasources'];

/** The providers (anyone), the tenant's sources and one source (viewers): never a URL. */
export function registerSourceReadRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/datasources/providers',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'listDataSourceProviders',
        tags,
        summary: 'The supported database types and what they can do (no authentication)',
        response: { 200: Type.Object({ providers: Type.Array(ProviderSchema) }), ...errorResponses(429) },
      },
    },
    async () => ({ providers: ctx.sql.providers() }),
  );

  app.get(
    '/api/v1/datasources',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listDataSources',
        tags,
        security: bearer,
        summary: 'Data sources of the tenant, without connection URLs or their environment variable names',
        querystring: DataSourceListQuery,
        response: {
          200: Type.Object({ dataSources: Type.Array(DataSourceListItem), total: Type.Integer() }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const rows = await listDataSources(ctx.db, currentUser(request).tenantId, request.query);
      return { dataSources: rows.map(listItem), total: rows.length };
    },
  );

  app.get(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDataSource',
        tags,
        security: bearer,
        summary: 'A data source, with connectionUrlEnv (the URL itself is never returned)',
        params: IdParams,
        response: { 200: DataSourceDetail, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => detail(await dataSourceOf(ctx.db, currentUser(request).tenantId, request.params.id)),
  );
}
