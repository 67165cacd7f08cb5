import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { createSaved, deleteSaved, updateSaved } from './manage.ts';
import { CreateSavedQueryBody, SavedQuery, UpdateSavedQueryBody } from './schemas.ts';
import { savedQuery } from './view.ts';

const tags = ['queries'];

/** Save, change and delete queries (editors; the text and source within the source's sqlRole). */
export function registerSavedQueryWriteRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/queries',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createSavedQuery',
        tags,
        security: bearer,
        summary: 'Save a query (editor)',
        body: CreateSavedQueryBody,
        response: { 201: SavedQuery, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await createSaved(ctx, request, request.body);
      reply.header('location', `/api/v1/queries/${row.id}`);
      return reply.code(201).send(savedQuery(row));
    },
  );

  app.put(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateSavedQuery',
        tags,
        security: bearer,
        summary: 'Change a saved query (editor); only the fields given change',
        params: IdParams,
        body: UpdateSavedQueryBody,
        response: { 200: SavedQuery, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => savedQuery(await updateSaved(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/queries/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteSavedQuery',
        tags,
        security: bearer,
        summary: 'Delete a saved query (editor)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteSaved(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
