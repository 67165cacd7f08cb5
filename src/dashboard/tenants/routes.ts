import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { IdParams, bearer } from '../schemas.ts';
import { createOwnedTenant, ownedTenant, updateOwnedTenant } from './manage.ts';
import { NewTenantBody, TenantChangeBody, TenantSchema } from './schemas.ts';
import { tenantsOwnedBy } from './store.ts';

const tags = ['tenants'];

/**
 * Tenant administration (owner only). An owner administers every tenant in which their email is an
 * active owner; creating a tenant makes the caller its first owner. Any other tenant is not found.
 */
export function registerTenantRoutes(app: App, ctx: DashboardContext): void {
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
          ...errorResponses(401, 403, 429),
        },
      },
    },
    async (request) => ({ items: await tenantsOwnedBy(ctx.db, currentUser(request).email), next: null }),
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
        body: NewTenantBody,
        response: { 201: TenantSchema, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await createOwnedTenant(ctx, request, request.body)),
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
        response: { 200: TenantSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ownedTenant(ctx, request, request.params.id),
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
        body: TenantChangeBody,
        response: { 200: TenantSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => updateOwnedTenant(ctx, request, request.params.id, request.body),
  );
}
