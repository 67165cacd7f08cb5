import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import { recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { DisplayText, IdParams, PlanSchema, Slug, Timestamp, bearer, errors } from '../schemas.ts';
import { createUser, getUser } from '../users/store.ts';
import { createTenant, TenantSlugTaken, tenantsOwnedBy, updateTenant, type Tenant } from './store.ts';

export const TenantSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  plan: PlanSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const tags = ['tenants'];

/**
 * Tenant administration (owner only). An owner administers every tenant in which their email is an
 * active owner; creating a tenant makes the caller its first owner. Any other tenant is not found.
 */
export function registerTenantRoutes(app: App, ctx: DashboardContext): void {
  const { db } = ctx;

  const owned = async (request: Parameters<typeof currentUser>[0], id: number): Promise<Tenant> => {
    const me = currentUser(request);
    const tenants = await tenantsOwnedBy(db, me.email);
    const t = tenants.find((x) => x.id === id);
    if (!t) throw notFound('tenant');
    return t;
  };

  app.get(
    '/api/v1/admin/tenants',
    {
      config: { access: signedIn('owner') },
      schema: {
        operationId: 'listTenants',
        tags,
        security: bearer,
        summary: 'Tenants the caller owns',
        response: {
          200: Type.Object({ items: Type.Array(TenantSchema), next: Type.Null() }),
          ...errors(401, 403, 429),
        },
      },
    },
    async (request) => ({ items: await tenantsOwnedBy(db, currentUser(request).email), next: null }),
  );

  app.post(
    '/api/v1/admin/tenants',
    {
      config: { access: signedIn('owner') },
      schema: {
        operationId: 'createTenant',
        tags,
        security: bearer,
        summary: 'Create a tenant; the caller becomes its owner (signing in with `tenant=<slug>` enters it)',
        body: Type.Object(
          { slug: Slug, name: DisplayText(200), plan: Type.Optional(PlanSchema) },
          { additionalProperties: false },
        ),
        response: { 201: TenantSchema, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const me = currentUser(request);
      const { slug, name, plan } = request.body;
      const tenant = await db.transaction(async (tx) => {
        let t: Tenant;
        try {
          t = await createTenant(tx, { slug, name: name.trim(), plan: plan ?? 'free' });
        } catch (err) {
          if (err instanceof TenantSlugTaken) throw conflict(err.message);
          throw err;
        }
        const self = (await getUser(tx, me.tenantId, me.id))!;
        const ownerRow = await createUser(tx, { tenantId: t.id, email: self.email, name: self.name, role: 'owner' });
        // Recorded in both tenants: the new one's log starts with its creation, the old one's shows who left to make it.
        await recordAudit(tx, {
          tenantId: t.id,
          userId: ownerRow.id,
          action: 'tenant.create',
          targetType: 'tenant',
          targetId: t.id,
          details: { slug, plan: t.plan, createdFromTenant: me.tenantId },
        });
        await recordAudit(tx, {
          tenantId: me.tenantId,
          userId: me.id,
          action: 'tenant.create',
          targetType: 'tenant',
          targetId: t.id,
          details: { slug, plan: t.plan },
        });
        return t;
      });
      return reply.code(201).send(tenant);
    },
  );

  app.get(
    '/api/v1/admin/tenants/:id',
    {
      config: { access: signedIn('owner') },
      schema: {
        operationId: 'getTenant',
        tags,
        security: bearer,
        summary: 'A tenant the caller owns',
        params: IdParams,
        response: { 200: TenantSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => owned(request, request.params.id),
  );

  app.patch(
    '/api/v1/admin/tenants/:id',
    {
      config: { access: signedIn('owner') },
      schema: {
        operationId: 'updateTenant',
        tags,
        security: bearer,
        summary: 'Rename a tenant or change its plan (rate limit tier)',
        params: IdParams,
        body: Type.Object(
          { name: Type.Optional(DisplayText(200)), plan: Type.Optional(PlanSchema) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: TenantSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const before = await owned(request, request.params.id);
      const me = currentUser(request);
      return db.transaction(async (tx) => {
        const t = (await updateTenant(tx, before.id, { name: request.body.name?.trim(), plan: request.body.plan }))!;
        const actorId =
          before.id === me.tenantId
            ? me.id
            : ((
                await tx.query<{ id: number }>(
                  `SELECT id FROM users WHERE tenant_id = $1 AND lower(email) = lower($2)`,
                  [before.id, me.email],
                )
              ).rows[0]?.id ?? null);
        await recordAudit(tx, {
          tenantId: before.id,
          userId: actorId,
          action: 'tenant.update',
          targetType: 'tenant',
          targetId: before.id,
          details: { ...request.body },
        });
        return t;
      });
    },
  );
}
