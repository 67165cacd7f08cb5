import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { IdParams, IdPosition, ListQuery, UserSchema, bearer } from '../schemas.ts';
import { getUser, listUsers, toUser } from './store.ts';

const tags = ['users'];

/** The tenant's users and one of them (admins). */
export function registerUserReadRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/admin/users',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'listUsers',
        tags,
        security: bearer,
        summary: "Users of the caller's tenant, by id",
        querystring: ListQuery,
        response: { 200: pageOf(UserSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, IdPosition)?.[0];
      const rows = await listUsers(ctx.db, currentUser(request).tenantId, { after, limit: limit + 1 });
      return toPage(rows, limit, (r) => [r.id], toUser);
    },
  );

  app.get(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'getUser',
        tags,
        security: bearer,
        summary: 'One user of the tenant',
        params: IdParams,
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const row = await getUser(ctx.db, currentUser(request).tenantId, request.params.id);
      if (!row) throw notFound('user');
      return toUser(row);
    },
  );
}
