import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn, signedInOnSource } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { requestedDataSource } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { clientGoneSignal } from '../sql/client-gone.ts';
import { sendJson } from '../sql/results.ts';
import { runAdHoc } from '../sql/run.ts';
import { DataSourceQueryResult, MaxRows, Parameters, QueryText, TableDescriptorSchema } from '../sql/schemas.ts';
import { testSource } from './manage.ts';
import { SchemaQuery, TestOutcomeSchema } from './schemas.ts';

const tags = ['datasources'];

/** The connection test (admins), ad-hoc SQL and schema browsing (editors). */
export function registerSourceRunRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/datasources/:id/test',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'testDataSource',
        tags,
        security: bearer,
        summary:
          'Open a fresh connection (not cached), run SELECT 1 and close it (admin); success updates lastConnectedAt',
        params: IdParams,
        response: { 200: TestOutcomeSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => testSource(ctx, request, request.params.id),
  );

  app.post(
    '/api/v1/datasources/:id/query',
    {
      config: { access: signedInOnSource('editor') },
      schema: {
        operationId: 'queryDataSource',
        tags,
        security: bearer,
        summary: 'Run one SQL statement (editor); named parameters :name or @name are bound, rows stop at maxRows',
        params: IdParams,
        body: Type.Object(
          { query: QueryText, parameters: Type.Optional(Parameters), maxRows: MaxRows },
          { additionalProperties: false },
        ),
        response: { 200: DataSourceQueryResult, ...errorResponses(400, 401, 403, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const row = await requestedDataSource(ctx.db, request, currentUser(request).tenantId, request.params.id);
      const { query, parameters = {}, maxRows } = request.body;
      const signal = clientGoneSignal(reply);
      const options = { query, parameters: parameters as Record<string, unknown>, maxRows, signal };
      const result = await runAdHoc(ctx, request, row, options);
      return sendJson(reply, result);
    },
  );

  app.get(
    '/api/v1/datasources/:id/schema',
    {
      config: { access: signedInOnSource('editor') },
      schema: {
        operationId: 'getDataSourceSchema',
        tags,
        security: bearer,
        summary: "Tables and views of a schema (editor): the public schema or MySQL's current database by default",
        params: IdParams,
        querystring: SchemaQuery,
        response: {
          200: Type.Object({ tables: Type.Array(TableDescriptorSchema) }),
          ...errorResponses(400, 401, 403, 404, 408, 429, 503),
        },
      },
    },
    async (request) => {
      const row = await requestedDataSource(ctx.db, request, currentUser(request).tenantId, request.params.id);
      const { schema, columns, filter } = request.query;
      return { tables: await ctx.sql.schema(row, { schema, columns, filter }) };
    },
  );
}
