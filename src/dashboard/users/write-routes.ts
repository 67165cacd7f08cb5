import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, UserSchema, bearer } from '../schemas.ts';
import { addUser, changeUser, deactivateUser } from './manage.ts';
import { CreatedUserSchema, NewUserBody, UserChangeBody } from './schemas.ts';
import { toUser } from './store.ts';

const tags = ['users'];

/** Add, change and deactivate users (admins; owners for owners). */
export function registerUserWriteRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/admin/users',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'createUser',
        tags,
        security: bearer,
        summary:
          'Add a person to the tenant; they sign in with a provider that verifies this email (linked to identity: with a link to choose a password there)',
        body: NewUserBody,
        response: { 201: CreatedUserSchema, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const { created, account } = await addUser(ctx, request, request.body);
      // The link is answered this once and kept nowhere here; the response is not logged (only its status).
      return reply.code(201).send({
        ...toUser(created),
        ...(account ? { platformAccount: account.status } : {}),
        ...(account?.status === 'created'
          ? { setupLink: account.setupLink, setupLinkExpiresAt: account.expiresAt }
          : {}),
      });
    },
  );

  app.patch(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'updateUser',
        tags,
        security: bearer,
        summary:
          "Change a user's name or role, or reactivate a deactivated user (`active: true`); a provider's name replaces the name at the user's next sign-in",
        params: IdParams,
        body: UserChangeBody,
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => toUser(await changeUser(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/admin/users/:id',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'deactivateUser',
        tags,
        security: bearer,
        summary: 'Deactivate a user: their tokens stop working at once (the record stays, for the audit log)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await deactivateUser(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
