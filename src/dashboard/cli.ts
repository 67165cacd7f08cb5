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
import { readProvisioningDir } from './provision/files.ts';
import { ProvisioningError } from './provision/format.ts';
import { provision } from './provision/run.ts';
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
    classify: (err) =>
      err instanceof TenantSlugTaken || err instanceof EmailTaken ? new CommandFailure(err.message) : undefined,
    commands: [
      {
        path: ['tenants', 'create'],
        synopsis: '--slug SLUG --name NAME [--plan free|pro|enterprise]',
        summary: 'create a tenant',
        options: { slug: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' } },
        required: ['slug', 'name'],
        run: ({ values, result }) => {
          const slug = str(values, 'slug')!;
          if (!SLUG.test(slug) || slug.length > 100)
            throw new UsageError('--slug must be lower-case letters, digits and single hyphens');
          const plan = str(values, 'plan') ?? 'free';
          if (!(PLANS as readonly string[]).includes(plan))
            throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
          return withDatabase(async (db) => {
            const t = await createTenant(db, { slug, name: str(values, 'name')!, plan: plan as Plan });
            await recordAudit(db, {
              tenantId: t.id,
              userId: null,
              action: 'tenant.create',
              targetType: 'tenant',
              targetId: t.id,
              details: { slug, plan, by: 'cli' },
            });
            result(t, [`tenant ${t.id} ${t.slug} (${t.plan})`]);
          });
        },
      },
      {
        path: ['tenants', 'list'],
        synopsis: '',
        summary: 'list tenants',
        run: ({ result }) =>
          withDatabase(async (db) => {
            const tenants = await listTenants(db);
            result(
              { items: tenants },
              tenants.map((t) => `${t.id}\t${t.slug}\t${t.plan}\t${t.name}`),
            );
          }),
      },
      {
        path: ['users', 'create'],
        synopsis: '--tenant SLUG --email EMAIL --name NAME --role viewer|editor|admin|owner',
        summary: 'add a user to a tenant',
        options: {
          tenant: { type: 'string' },
          email: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string' },
        },
        required: ['tenant', 'email', 'name', 'role'],
        run: ({ values, result }) => {
          const role = str(values, 'role')!;
          if (!isRole(role)) throw new UsageError('--role must be one of viewer, editor, admin, owner');
          const email = str(values, 'email')!;
          if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email is not an email address');
          return withDatabase(async (db) => {
            const tenant = await tenantBySlug(db, str(values, 'tenant')!);
            const u = await createUser(db, { tenantId: tenant.id, email, name: str(values, 'name')!, role });
            await recordAudit(db, {
              tenantId: tenant.id,
              userId: null,
              action: 'user.create',
              targetType: 'user',
              targetId: u.id,
              details: { email, role, by: 'cli' },
            });
            result(u, [`user ${u.id} ${u.email} (${u.role}) in ${tenant.slug}`]);
          });
        },
      },
      {
        path: ['provision'],
        synopsis: '[--tenant SLUG] [--dir DIR] [--no-platform]',
        summary: 'add the platform data sources and starter dashboards, and apply provisioning files (safe to repeat)',
        details: [
          '--tenant SLUG    tenant for the platform data and files without `tenant` (default: the first tenant)',
          '--dir DIR        folder of YAML/JSON provisioning files (default: DASHBOARD_PROVISIONING_DIR)',
          '--no-platform    only the files: no data sources over the ingest and audit tables',
          'The platform data needs the ingest and audit services on PostgreSQL (DATABASE_URL); on embedded',
          'storage it is skipped with the reason. Existing platform data is left as it is; files are applied',
          'so the database matches them. Nothing changes when nothing differs.',
        ],
        options: { tenant: { type: 'string' }, dir: { type: 'string' }, 'no-platform': { type: 'boolean' } },
        paths: ['dir'],
        run: async ({ values, result }) => {
          const dir = str(values, 'dir') ?? config.provisioningDir;
          const platform = values['no-platform'] !== true;
          let files;
          try {
            files = dir ? readProvisioningDir(dir) : [];
          } catch (err) {
            if (err instanceof ProvisioningError) throw new CommandFailure(err.message);
            throw err;
          }
          if (!platform && !files.length)
            throw new CommandFailure(
              dir
                ? `no .yaml, .yml or .json file in ${dir}`
                : 'nothing to do: --no-platform without --dir or DASHBOARD_PROVISIONING_DIR',
            );
          return withDatabase(async (db) => {
            let r;
            try {
              r = await provision(db, config, { platform, files, tenant: str(values, 'tenant') });
            } catch (err) {
              if (err instanceof ProvisioningError) throw new CommandFailure(err.message);
              throw err;
            }
            if (!r.tenant && !r.files.length)
              throw new CommandFailure(
                'no tenant exists yet: create the first owner (the web app, DASHBOARD_BOOTSTRAP_OWNER or `tenants create`) first',
              );
            if (platform && !r.platform.applied && !files.length)
              throw new CommandFailure(`the platform data is not available: ${r.platform.skipped.join('; ')}`);
            const lines: string[] = [];
            const outcome = (what: string, items: { slug: string; outcome: string }[], where: string) =>
              items.forEach((i) => lines.push(`${what} ${i.slug} (${where}): ${i.outcome}`));
            if (r.platform.report) {
              outcome('data source', r.platform.report.dataSources, `platform, ${r.tenant!.slug}`);
              outcome('dashboard', r.platform.report.dashboards, `platform, ${r.tenant!.slug}`);
            }
            for (const s of r.platform.skipped) lines.push(`skipped ${s}`);
            for (const f of r.files) {
              outcome('data source', f.report.dataSources, `${f.name}, ${f.tenant}`);
              outcome('dashboard', f.report.dashboards, `${f.name}, ${f.tenant}`);
            }
            for (const p of r.pending) lines.push(`waiting ${p}: no tenant exists yet`);
            result(r, lines);
          });
        },
      },
      {
        path: ['token'],
        synopsis: '--tenant SLUG --email EMAIL',
        summary: "sign a user in from the operator's shell: prints a token pair as JSON",
        options: { tenant: { type: 'string' }, email: { type: 'string' } },
        required: ['tenant', 'email'],
        exports: (pair: { accessToken?: string; refreshToken?: string }) => ({
          DASHBOARD_TOKEN: pair.accessToken,
          DASHBOARD_REFRESH_TOKEN: pair.refreshToken,
        }),
        run: ({ values, result }) =>
          withDatabase(async (db) => {
            const tenant = await tenantBySlug(db, str(values, 'tenant')!);
            const user = await findUserByEmail(db, tenant.id, str(values, 'email')!);
            if (!user) throw new CommandFailure(`no user ${str(values, 'email')} in tenant ${tenant.slug}`);
            if (!user.active) throw new CommandFailure(`user ${user.email} is deactivated`);
            const tokens = {
              keys: jwtKeys(config.jwtSecret, config.secretKey),
              accessTtl: config.accessTokenTtl,
              refreshTtl: config.refreshTokenTtl,
            };
            const pair = await startSession(
              db,
              tokens,
              { id: user.id, email: user.email, role: user.role, tenantId: user.tenant_id },
              'cli',
            );
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
