import { parseArgs } from 'node:util';
import { migrate } from '../kit/migrations.ts';
import type { CommandIO } from '../kit/service.ts';
import { resolveSecretKey } from '../kit/secret-key.ts';
import { DASHBOARD_MIGRATIONS, openDashboardDatabase } from './app.ts';
import { jwtKeys } from './auth/jwt.ts';
import { isRole } from './auth/roles.ts';
import { startSession } from './auth/sessions.ts';
import { PLANS, type Plan } from './auth/user.ts';
import { recordAudit } from './audit/record.ts';
import type { DashboardConfig } from './config.ts';
import { createTenant, findTenantBySlug, listTenants, TenantSlugTaken } from './tenants/store.ts';
import { createUser, EmailTaken, findUserByEmail } from './users/store.ts';

export const DASHBOARD_USAGE = [
  'tenants create --slug SLUG --name NAME [--plan free|pro|enterprise]   create a tenant',
  'tenants list                                                           list tenants',
  'users create --tenant SLUG --email EMAIL --name NAME --role ROLE      add a user to a tenant (viewer, editor, admin, owner)',
  'token --tenant SLUG --email EMAIL                                     sign a user in from the operator\'s shell: prints a token pair as JSON',
];

class CommandError extends Error {}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** `platform dashboard ...`: tenants, users and tokens straight against the service's database (the operator's tools). */
export async function dashboardCommand(args: string[], config: DashboardConfig, io: CommandIO): Promise<number> {
  const [group, action, ...rest] = args;
  const command = group === 'token' ? 'token' : `${group} ${action}`;
  const known = ['tenants create', 'tenants list', 'users create', 'token'];
  if (!known.includes(command)) {
    io.err(`unknown command "dashboard ${args.join(' ')}"; usage:\n${DASHBOARD_USAGE.map((u) => `  platform dashboard ${u}`).join('\n')}`);
    return 2;
  }
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: group === 'token' ? args.slice(1) : rest,
      options: { slug: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' }, tenant: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    io.err(`platform dashboard ${command}: ${(err as Error).message}`);
    return 2;
  }
  const db = await openDashboardDatabase(config);
  try {
    await migrate(db, DASHBOARD_MIGRATIONS);
    const need = (name: string): string => {
      const v = values[name];
      if (!v) throw new CommandError(`--${name} is required`);
      return v;
    };
    const tenantBySlug = async () => {
      const t = await findTenantBySlug(db, need('tenant'));
      if (!t) throw new CommandError(`no tenant with slug "${values.tenant}"`);
      return t;
    };
    if (command === 'tenants create') {
      const slug = need('slug');
      if (!SLUG.test(slug) || slug.length > 100) throw new CommandError('--slug must be lower-case letters, digits and single hyphens');
      const plan = values.plan ?? 'free';
      if (!(PLANS as readonly string[]).includes(plan)) throw new CommandError(`--plan must be one of ${PLANS.join(', ')}`);
      const t = await createTenant(db, { slug, name: need('name'), plan: plan as Plan });
      await recordAudit(db, { tenantId: t.id, userId: null, action: 'tenant.create', targetType: 'tenant', targetId: t.id, details: { slug, plan, by: 'cli' } });
      io.out(`tenant ${t.id} ${t.slug} (${t.plan})`);
      return 0;
    }
    if (command === 'tenants list') {
      for (const t of await listTenants(db)) io.out(`${t.id}\t${t.slug}\t${t.plan}\t${t.name}`);
      return 0;
    }
    if (command === 'users create') {
      const tenant = await tenantBySlug();
      const role = need('role');
      if (!isRole(role)) throw new CommandError('--role must be one of viewer, editor, admin, owner');
      const email = need('email');
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new CommandError('--email is not an email address');
      const u = await createUser(db, { tenantId: tenant.id, email, name: need('name'), role });
      await recordAudit(db, { tenantId: tenant.id, userId: null, action: 'user.create', targetType: 'user', targetId: u.id, details: { email, role, by: 'cli' } });
      io.out(`user ${u.id} ${u.email} (${u.role}) in ${tenant.slug}`);
      return 0;
    }
    const tenant = await tenantBySlug();
    const user = await findUserByEmail(db, tenant.id, need('email'));
    if (!user) throw new CommandError(`no user ${values.email} in tenant ${tenant.slug}`);
    if (!user.active) throw new CommandError(`user ${user.email} is deactivated`);
    const tokens = { keys: jwtKeys(config.jwtSecret, resolveSecretKey(config.secretKey, config.dataDir)), accessTtl: config.accessTokenTtl, refreshTtl: config.refreshTokenTtl };
    const pair = await startSession(db, tokens, { id: user.id, email: user.email, role: user.role, tenantId: user.tenant_id }, 'cli');
    io.out(JSON.stringify(pair));
    return 0;
  } catch (err) {
    if (err instanceof CommandError || err instanceof TenantSlugTaken || err instanceof EmailTaken) {
      io.err(`platform dashboard ${command}: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await db.close();
  }
}
