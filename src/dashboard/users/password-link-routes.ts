import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { newPasswordLink } from './password-link.ts';
import { PasswordLinkSchema } from './schemas.ts';

/**
 * "New password link" (admin or owner), when `platform start` links identity: a fresh one-time link for a user whose
 * account Add user made and who never chose a password (the first link expired or was lost).
 */
export function registerPasswordLinkRoute(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/admin/users/:id/password-link',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'newPasswordLink',
        tags: ['users'],
        security: bearer,
        summary:
          "A new one-time link to choose a password at the platform's identity service, for a user who has not chosen one yet; their older links stop working",
        params: IdParams,
        response: { 201: PasswordLinkSchema, ...errorResponses(400, 401, 403, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const made = await newPasswordLink(ctx, request, request.params.id);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ setupLink: made.setupLink, setupLinkExpiresAt: made.expiresAt });
    },
  );
}
