import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../kit/db.ts';
import type { AuthUser } from './auth/user.ts';
import type { DashboardConfig } from './config.ts';
import { lockFirstOwner } from './setup/store.ts';
import { createTenant, findTenantBySlug } from './tenants/store.ts';
import { createUser, findUserByEmail } from './users/store.ts';

export const DEV_TENANT = 'dev';
export const DEV_EMAIL = 'dev@localhost';

/**
 * The operator's first owner: when no tenant exists yet and DASHBOARD_BOOTSTRAP_OWNER names an email,
 * a tenant is made with that person as its owner, named DASHBOARD_BOOTSTRAP_OWNER_NAME. Nobody else can become a member without an admin.
 * True when it made them (the first run).
 */
export async function bootstrapFirstOwner(
  db: Database,
  config: DashboardConfig,
  log: FastifyBaseLogger,
): Promise<boolean> {
  const email = config.bootstrapOwner;
  if (!email) return false;
  return db.transaction(async (tx) => {
    await lockFirstOwner(tx);
    const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM tenants`);
    if (rows[0]!.n > 0) return false;
    const tenant = await createTenant(tx, {
      slug: config.bootstrapTenant,
      name: config.bootstrapTenant,
      plan: 'enterprise',
    });
    // Named as the operator says, else by the address itself: the provider's name replaces it at the first sign-in.
    const name = config.bootstrapOwnerName?.trim() || email;
    await createUser(tx, { tenantId: tenant.id, email, name, role: 'owner' });
    log.info({ tenant: tenant.slug }, 'created the first tenant and its owner from DASHBOARD_BOOTSTRAP_OWNER');
    return true;
  });
}

/** With authentication disabled every request acts as the owner of a `dev` tenant, made on first start. */
export async function ensureDevUser(db: Database): Promise<AuthUser> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard.dev-user'))`);
    const tenant =
      (await findTenantBySlug(tx, DEV_TENANT)) ??
      (await createTenant(tx, { slug: DEV_TENANT, name: 'Development', plan: 'enterprise' }));
    const user =
      (await findUserByEmail(tx, tenant.id, DEV_EMAIL)) ??
      (await createUser(tx, { tenantId: tenant.id, email: DEV_EMAIL, name: 'Developer', role: 'owner' }));
    return { id: user.id, tenantId: tenant.id, role: 'owner', email: user.email, plan: tenant.plan };
  });
}
