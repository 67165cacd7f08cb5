import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflictOn, notFound } from '../errors.ts';
import { createUser, findUserByEmail, getUser } from '../users/store.ts';
import type { NewTenantBody, TenantChangeBody } from './schemas.ts';
import { createTenant, TenantSlugTaken, tenantsOwnedBy, updateTenant, type Tenant } from './store.ts';

type Context = Pick<DashboardContext, 'db'>;

/** A tenant in which the caller's email is an active owner; any other is not found. */
export async function ownedTenant(ctx: Context, request: FastifyRequest, id: number): Promise<Tenant> {
  const tenants = await tenantsOwnedBy(ctx.db, currentUser(request).email);
  const t = tenants.find((x) => x.id === id);
  if (!t) throw notFound('tenant');
  return t;
}

/** A new tenant whose first owner is the caller (the same email and name), recorded in both tenants' logs. */
export async function createOwnedTenant(
  ctx: Context,
  request: FastifyRequest,
  body: Static<typeof NewTenantBody>,
): Promise<Tenant> {
  const me = currentUser(request);
  const { slug, name, plan } = body;
  return ctx.db.transaction(async (tx) => {
    const t = await createTenant(tx, { slug, name: name.trim(), plan: plan ?? 'free' }).catch(
      conflictOn(TenantSlugTaken),
    );
    const self = (await getUser(tx, me.tenantId, me.id))!;
    const owner = await createUser(tx, { tenantId: t.id, email: self.email, name: self.name, role: 'owner' });
    // Recorded in both tenants: the new one's log starts with its creation, the old one's shows who left to make it.
    const record = { action: 'tenant.create' as const, targetType: 'tenant', targetId: t.id };
    await recordAudit(tx, {
      ...record,
      tenantId: t.id,
      userId: owner.id,
      details: { slug, plan: t.plan, createdFromTenant: me.tenantId },
    });
    await recordAudit(tx, { ...record, tenantId: me.tenantId, userId: me.id, details: { slug, plan: t.plan } });
    return t;
  });
}

/** Renames a tenant the caller owns or changes its plan; recorded in that tenant's log as its owner's act. */
export async function updateOwnedTenant(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: Static<typeof TenantChangeBody>,
): Promise<Tenant> {
  const before = await ownedTenant(ctx, request, id);
  const me = currentUser(request);
  return ctx.db.transaction(async (tx) => {
    const t = (await updateTenant(tx, before.id, { name: body.name?.trim(), plan: body.plan }))!;
    const actorId = before.id === me.tenantId ? me.id : ((await findUserByEmail(tx, before.id, me.email))?.id ?? null);
    await recordAudit(tx, {
      tenantId: before.id,
      userId: actorId,
      action: 'tenant.update',
      targetType: 'tenant',
      targetId: before.id,
      details: { ...body },
    });
    return t;
  });
}
