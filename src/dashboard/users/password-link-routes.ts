import { HttpError } from '../../kit/errors.ts';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { actor, recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import { IdParams, bearer, errors } from '../schemas.ts';
import { PasswordLinkSchema } from './schemas.ts';
import { getUser } from './store.ts';

/**
 * "New password link" (admin or owner), when `platform start` links identity: a fresh one-time link for a user whose
 * account Add user made and who never chose a password (the first link expired or was lost). Identity decides who
 * qualifies (src/identity/password-links/issue.ts); this route says its refusals in the user's terms.
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
        response: { 201: PasswordLinkSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const linked = ctx.config.links?.identity;
      if (!linked)
        throw conflict(
          "this dashboard is not linked to the platform's identity service: people set their password where they sign in",
        );
      const user = await getUser(ctx.db, me.tenantId, request.params.id);
      if (!user) throw notFound('user');
      if (me.role !== 'owner' && user.role === 'owner')
        throw forbidden('only an owner may send an owner a password link');
      if (!user.active) throw conflict(`${user.email} is deactivated: reactivate them first`);
      // Only an account this tenant's Add user made: another tenant's (or identity's own) is not this admin's to open.
      const { rows } = await ctx.db.query<{ made: boolean }>(
        'SELECT made_platform_account AS made FROM users WHERE id = $1',
        [user.id],
      );
      if (!rows[0]?.made)
        throw conflict(
          `${user.email}'s platform account was not made by Add user in this tenant: they sign in with it as it is, or the platform's administrator sends them a link`,
        );
      const made = await linked.newPasswordLink({ email: user.email }).catch((err: unknown) => {
        if (err instanceof HttpError && err.statusCode === 404) throw notFound(`a platform account for ${user.email}`);
        if (err instanceof HttpError && err.statusCode < 500)
          throw new HttpError(err.statusCode, err.code, `the platform account of ${user.email}: ${err.message}`);
        // Identity not running, or its database failing: nothing was made, and the admin may try again.
        request.log.error({ err }, 'identity could not make a password link');
        throw new HttpError(
          503,
          'UNAVAILABLE',
          "the platform's identity service could not be reached: try again in a moment",
        );
      });
      // Who asked and for whom, never the link: it is a credential until used.
      await recordAudit(ctx.db, {
        ...actor(request),
        action: 'user.password_link',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email },
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ setupLink: made.setupLink, setupLinkExpiresAt: made.expiresAt });
    },
  );
}
