import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { etagOf, sendWithTag } from './etag.ts';
import { changeDashboard, createDashboard, removeDashboard } from './manage.ts';
import { Created, CreateDashboardBody, Full, IfMatchHeaders, UpdateDashboardBody } from './schemas.ts';
import { created } from './view.ts';

const tags = ['dashboards'];

/** Create, change and delete dashboards (editors); a change or delete may name the version it read (If-Match). */
export function registerDashboardWriteRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/dashboards',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createDashboard',
        tags,
        security: bearer,
        summary: 'Create a dashboard (version 1)',
        body: CreateDashboardBody,
        response: { 201: Created, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await createDashboard(ctx, request, request.body);
      reply.header('etag', etagOf(row)).header('location', `/api/v1/dashboards/${row.id}`);
      return reply.code(201).send(created(row));
    },
  );

  app.put(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateDashboard',
        tags,
        security: bearer,
        summary:
          'Change some fields (only those given); makes a new version. Send If-Match with the ETag you read to refuse lost updates (412).',
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateDashboardBody,
        response: { 200: Full, ...errorResponses(400, 401, 403, 404, 409, 412, 429) },
      },
    },
    async (request, reply) => sendWithTag(reply, await changeDashboard(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/dashboards/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteDashboard',
        tags,
        security: bearer,
        summary: 'Delete a dashboard and its versions',
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 412, 429) },
      },
    },
    async (request, reply) => {
      await removeDashboard(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
