import type { App } from '../../kit/app.ts';
import { OPEN } from '../auth/access.ts';
import type { Queryable } from '../../kit/db.ts';
import { recordAudit } from '../audit/record.ts';
import type { DashboardContext } from '../context.ts';
import { conflict, validation } from '../errors.ts';
import { errors } from '../schemas.ts';
import { SetupBody, SetupResultSchema, SetupStatusSchema } from './schemas.ts';
import { createTenant, TenantSlugTaken } from '../tenants/store.ts';
import { createUser } from '../users/store.ts';
import { provisionFirstRun } from '../provision/run.ts';

const tags = ['setup'];

/**
 * First run (Grafana's and Metabase's "create the first admin"): while the installation has no user at
 * all, anyone who can reach it may create the first tenant and its owner, once. The owner then signs in
 * with a provider that verifies that email; when `platform start` runs identity beside the dashboard, the form also
 * takes a password and the owner gets an account there to sign in with. Any user existing (made here, by DASHBOARD_BOOTSTRAP_OWNER or
 * by the CLI) closes it for good: 409.
 */
/** With identity linked the password is required, long enough and confirmed; without it there is nowhere to keep one. */
function checkPassword(
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

export function registerSetupRoutes(app: App, ctx: DashboardContext): void {
  const { db } = ctx;
  const noUsers = async (q: Queryable) => {
    const { rows } = await q.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM users) AS any`);
    return !rows[0]!.any;
  };

  app.get(
    '/api/v1/setup',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'getSetupStatus',
        tags,
        summary: 'Whether the first owner still has to be created',
        response: { 200: SetupStatusSchema, ...errors(429) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const linked = ctx.config.links?.identity;
      return {
        setupRequired: await noUsers(db),
        platformAccount: linked !== undefined,
        ...(linked ? { minPasswordLength: linked.minPasswordLength } : {}),
      };
    },
  );

  app.post(
    '/api/v1/setup',
    {
      config: { access: OPEN },
      schema: {
        operationId: 'createFirstOwner',
        tags,
        summary: 'Create the first tenant and its owner; refused (409) once any user exists',
        body: SetupBody,
        response: { 201: SetupResultSchema, ...errors(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const { tenantName, tenantSlug, email, name, password, passwordConfirmation } = request.body;
      const linked = ctx.config.links?.identity;
      checkPassword(linked?.minPasswordLength, password, passwordConfirmation);
      const made = await db.transaction(async (tx) => {
        // The same lock as DASHBOARD_BOOTSTRAP_OWNER: two first visitors at once make one owner.
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dashboard.bootstrap'))`);
        if (!(await noUsers(tx))) return undefined;
        const tenant = await createTenant(tx, { slug: tenantSlug, name: tenantName, plan: 'enterprise' }).catch(
          (err: unknown) => {
            if (err instanceof TenantSlugTaken) throw conflict(err.message);
            throw err;
          },
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
      });
      if (!made) throw conflict('the first owner already exists; ask an admin of your tenant to add you');
      // The first run: the platform's data sources and starter dashboards, and files that waited for a tenant.
      await provisionFirstRun(db, ctx.config, request.log);
      return reply.code(201).send(made);
    },
  );
}
