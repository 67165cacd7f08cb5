import type { FastifyBaseLogger } from 'fastify';
import type { Static } from 'typebox';
import type { Queryable } from '../../kit/db.ts';
import { recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, conflictOn, validation } from '../errors.ts';
import { provisionFirstRun } from '../provision/run.ts';
import { createTenant, TenantSlugTaken } from '../tenants/store.ts';
import { createUser } from '../users/store.ts';
import type { SetupBody, SetupResultSchema } from './schemas.ts';
import { lockFirstOwner, noUsersYet } from './store.ts';

type Context = Pick<DashboardContext, 'db' | 'config'>;
type SetupResult = Static<typeof SetupResultSchema>;

/** With identity linked the password is required, long enough and confirmed; without it there is nowhere to keep one. */
export function checkPassword(
  minLength: number | undefined,
  password: string | undefined,
  confirmation: string | undefined,
): void {
  if (minLength === undefined) {
    if (password !== undefined || confirmation !== undefined) {
      throw validation(
        "password: not used here; sign-in with the platform's identity service is set up only when `platform start` runs both",
      );
    }
    return;
  }
  if (password === undefined)
    throw validation("password: required (the owner signs in with it at the platform's identity service)");
  if (password.length < minLength) throw validation(`password: must be at least ${minLength} characters`);
  if (confirmation !== password) throw validation('passwordConfirmation: does not match the password');
}

/**
 * The first tenant and its owner, once: under the same lock as DASHBOARD_BOOTSTRAP_OWNER, so two first visitors at
 * once make one owner; 409 once any user exists. Then the first run's provisioning.
 */
export async function createFirstOwner(
  ctx: Context,
  body: Static<typeof SetupBody>,
  log: FastifyBaseLogger,
): Promise<SetupResult> {
  const linked = ctx.config.links?.identity;
  checkPassword(linked?.minPasswordLength, body.password, body.passwordConfirmation);
  const made = await ctx.db.transaction(async (tx) => {
    await lockFirstOwner(tx);
    return (await noUsersYet(tx)) ? makeOwner(tx, ctx, body) : undefined;
  });
  if (!made) throw conflict('the first owner already exists; ask an admin of your tenant to add you');
  // The first run: the platform's data sources and starter dashboards, and files that waited for a tenant.
  await provisionFirstRun(ctx.db, ctx.config, log);
  return made;
}

async function makeOwner(tx: Queryable, ctx: Context, body: Static<typeof SetupBody>): Promise<SetupResult> {
  const { tenantName, tenantSlug, email, name, password } = body;
  const linked = ctx.config.links?.identity;
  const tenant = await createTenant(tx, { slug: tenantSlug, name: tenantName, plan: 'enterprise' }).catch(
    conflictOn(TenantSlugTaken),
  );
  const user = await createUser(tx, { tenantId: tenant.id, email, name, role: 'owner' });
  // In the same request, under the same lock: a failure there rolls the owner back, so the form can be sent again.
  const platformAccount =
    linked && password !== undefined ? await linked.ensureOwnerAccount({ email, name, password }) : undefined;
  await recordAudit(tx, {
    tenantId: tenant.id,
    userId: null,
    action: 'setup.first_owner',
    targetType: 'user',
    targetId: user.id,
    details: { email, tenant: tenant.slug, ...(platformAccount ? { platformAccount } : {}) },
  });
  return {
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name },
    user: { id: user.id, email: user.email, name: user.name, role: 'owner' as const },
    ...(platformAccount ? { platformAccount } : {}),
  };
}
