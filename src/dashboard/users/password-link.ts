import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import type { DashboardLinks } from '../platform-link.ts';
import { getUser, madePlatformAccount, type UserRow } from './store.ts';

type Context = Pick<DashboardContext, 'db' | 'config'>;
type Identity = NonNullable<DashboardLinks['identity']>;

/**
 * A fresh one-time link for a user whose account Add user made and who never chose a password. Identity decides who
 * qualifies (src/identity/password-links/issue.ts); the refusals here are said in the user's terms.
 */
export async function newPasswordLink(
  ctx: Context,
  request: FastifyRequest,
  id: number,
): Promise<{ setupLink: string; expiresAt: string }> {
  const linked = identityOf(ctx);
  const user = await linkableUser(ctx, request, id);
  const made = await linked.newPasswordLink({ email: user.email }).catch((err: unknown) => {
    throw identityRefusal(request, user, err);
  });
  // Who asked and for whom, never the link: it is a credential until used.
  await recordAudit(ctx.db, {
    ...actor(request),
    action: 'user.password_link',
    targetType: 'user',
    targetId: user.id,
    details: { email: user.email },
  });
  return made;
}

function identityOf(ctx: Context): Identity {
  const linked = ctx.config.links?.identity;
  if (!linked)
    throw conflict(
      "this dashboard is not linked to the platform's identity service: people set their password where they sign in",
    );
  return linked;
}

/** An active user of the tenant, an owner only for an owner, whose account this tenant's Add user made. */
async function linkableUser(ctx: Context, request: FastifyRequest, id: number): Promise<UserRow> {
  const me = currentUser(request);
  const user = await getUser(ctx.db, me.tenantId, id);
  if (!user) throw notFound('user');
  if (me.role !== 'owner' && user.role === 'owner') throw forbidden('only an owner may send an owner a password link');
  if (!user.active) throw conflict(`${user.email} is deactivated: reactivate them first`);
  // Only an account this tenant's Add user made: another tenant's (or identity's own) is not this admin's to open.
  if (!(await madePlatformAccount(ctx.db, user.id)))
    throw conflict(
      `${user.email}'s platform account was not made by Add user in this tenant: they sign in with it as it is, or the platform's administrator sends them a link`,
    );
  return user;
}

function identityRefusal(request: FastifyRequest, user: UserRow, err: unknown): HttpError {
  if (err instanceof HttpError && err.statusCode === 404) return notFound(`a platform account for ${user.email}`);
  if (err instanceof HttpError && err.statusCode < 500)
    return new HttpError(err.statusCode, err.code, `the platform account of ${user.email}: ${err.message}`);
  // Identity not running, or its database failing: nothing was made, and the admin may try again.
  request.log.error({ err }, 'identity could not make a password link');
  return new HttpError(
    503,
    'UNAVAILABLE',
    "the platform's identity service could not be reached: try again in a moment",
  );
}
