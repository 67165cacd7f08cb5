import { UsageError, str, type Command } from '../../kit/cli-runner.ts';
import { recordAudit } from '../audit/record.ts';
import { PLANS, type Plan } from '../auth/user.ts';
import { createTenant, listTenants } from '../tenants/store.ts';
import type { CommandDeps } from './deps.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function tenantsCreate({ withDatabase }: CommandDeps): Command {
  return {
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
  };
}

export function tenantsList({ withDatabase }: CommandDeps): Command {
  return {
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
  };
}
