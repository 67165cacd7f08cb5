import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { createSource, deleteSource, updateSource } from './manage.ts';
import { CreateDataSourceBody, DataSourceCreated, DataSourceDetail, UpdateDataSourceBody } from './schemas.ts';
import { created, detail } from './view.ts';

const tags = ['datasources'];

/** Create, change and delete (admins). */
export function registerSourceWriteRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/datasources',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'createDataSource',
        tags,
        security: bearer,
        summary: 'Create a data source (admin); one of connectionUrl or connectionUrlEnv',
        body: CreateDataSourceBody,
        response: { 201: DataSourceCreated, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await createSource(ctx, request, request.body);
      reply.header('location', `/api/v1/datasources/${row.id}`);
      return reply.code(201).send(created(row));
    },
  );

  app.put(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'updateDataSource',
        tags,
        security: bearer,
        summary:
          'Change some fields (admin); only those given change. New connection settings close the open connections.',
        params: IdParams,
        body: UpdateDataSourceBody,
        response: { 200: DataSourceDetail, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => detail(await updateSource(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/datasources/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'deleteDataSource',
        tags,
        security: bearer,
        summary: 'Delete a data source (admin) and its saved queries; its open connections are closed first',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteSource(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
