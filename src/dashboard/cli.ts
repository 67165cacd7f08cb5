import type { Database } from '../kit/db.ts';
import { CommandFailure, UsageError, runCommand, str, usageLines, type CommandGroup } from '../kit/cli-runner.ts';
import { commandDatabase } from '../kit/service-config.ts';
import type { CommandIO } from '../kit/service.ts';
import { DASHBOARD_MIGRATIONS } from './app.ts';
import { jwtKeys } from './auth/jwt.ts';
import { isRole } from './auth/roles.ts';
import { startSession } from './auth/sessions.ts';
import { PLANS, type Plan } from './auth/user.ts';
import { recordAudit } from './audit/record.ts';
import type { DashboardConfig } from './config.ts';
import { createTenant, findTenantBySlug, listTenants, TenantSlugTaken } from './tenants/store.ts';
import { createUser, EmailTaken, findUserByEmail } from './users/store.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** `platform dashboard ...`: tenants, users and tokens straight against the service's database (the operator's tools). */
function dashboardCommands(config: DashboardConfig): CommandGroup {
  const withDatabase = commandDatabase('dashboard', config, DASHBOARD_MIGRATIONS);
  const tenantBySlug = async (db: Database, slug: string) => {
    const t = await findTenantBySlug(db, slug);
    if (!t) throw new CommandFailure(`no tenant with slug "${slug}"`);
    return t;
  };
  return {
    name: 'dashboard',
    classify: (err) => (err instanceof TenantSlugTaken || err instanceof EmailTaken ? new CommandFailure(err.message) : undefined),
    commands: [
      {
        path: ['tenants', 'create'],
        synopsis: '--slug SLUG --name NAME [--plan free|pro|enterprise]',
        summary: 'create a tenant',
        options: { slug: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' } },
        required: ['slug', 'name'],
        run: ({ values, result }) => {
          const slug = str(values, 'slug')!;
          if (!SLUG.test(slug) || slug.length > 100) throw new UsageError('--slug must be lower-case letters, digits and single hyphens');
          const plan = str(values, 'plan') ?? 'free';
          if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
          return withDatabase(async (db) => {
            const t = await createTenant(db, { slug, name: str(values, 'name')!, plan: plan as Plan });
            await recordAudit(db, { tenantId: t.id, userId: null, action: 'tenant.create', targetType: 'tenant', targetId: t.id, details: { slug, plan, by: 'cli' } });
            result(t, [`tenant ${t.id} ${t.slug} (${t.plan})`]);
          });
        },
      },
      {
        path: ['tenants', 'list'],
        synopsis: '',
        summary: 'list tenants',
        run: ({ result }) => withDatabase(async (db) => {
          const tenants = await listTenants(db);
          result({ items: tenants }, tenants.map((t) => `${t.id}\t${t.slug}\t${t.plan}\t${t.name}`));
        }),
      },
      {
        path: ['users', 'create'],
        synopsis: '--tenant SLUG --email EMAIL --name NAME --role viewer|editor|admin|owner',
        summary: 'add a user to a tenant',
        options: { tenant: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } },
        required: ['tenant', 'email', 'name', 'role'],
        run: ({ values, result }) => {
          const role = str(values, 'role')!;
          if (!isRole(role)) throw new UsageError('--role must be one of viewer, editor, admin, owner');
          const email = str(values, 'email')!;
          if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email is not an email address');
          return withDatabase(async (db) => {
            const tenant = await tenantBySlug(db, str(values, 'tenant')!);
            const u = await createUser(db, { tenantId: tenant.id, email, name: str(values, 'name')!, role });
            await recordAudit(db, { tenantId: tenant.id, userId: null, action: 'user.create', targetType: 'user', targetId: u.id, details: { email, role, by: 'cli' } });
            result(u, [`user ${u.id} ${u.email} (${u.role}) in ${tenant.slug}`]);
          });
        },
      },
      {
        path: ['token'],
        synopsis: '--tenant SLUG --email EMAIL',
        summary: 'sign a user in from the operator\'s shell: prints a token pair as JSON',
        options: { tenant: { type: 'string' }, email: { type: 'string' } },
        required: ['tenant', 'email'],
        exports: (pair: { accessToken?: string; refreshToken?: string }) => ({ DASHBOARD_TOKEN: pair.accessToken, DASHBOARD_REFRESH_TOKEN: pair.refreshToken }),
        run: ({ values, result }) => withDatabase(async (db) => {
          const tenant = await tenantBySlug(db, str(values, 'tenant')!);
          const user = await findUserByEmail(db, tenant.id, str(values, 'email')!);
          if (!user) throw new CommandFailure(`no user ${str(values, 'email')} in tenant ${tenant.slug}`);
          if (!user.active) throw new CommandFailure(`user ${user.email} is deactivated`);
          const tokens = { keys: jwtKeys(config.jwtSecret, config.secretKey), accessTtl: config.accessTokenTtl, refreshTtl: config.refreshTokenTtl };
          const pair = await startSession(db, tokens, { id: user.id, email: user.email, role: user.role, tenantId: user.tenant_id }, 'cli');
          result(pair, [JSON.stringify(pair)]);
        }),
      },
    ],
  };
}

/** One line per command for `platform help` (no configuration needed to list them). */
export const DASHBOARD_USAGE = usageLines(dashboardCommands({} as DashboardConfig));

export function dashboardCommand(args: string[], config: DashboardConfig, io: CommandIO): Promise<number> {
  return runCommand(dashboardCommands(config), args, io);
}
