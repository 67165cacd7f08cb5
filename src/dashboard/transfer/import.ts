import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Queryable } from '../../kit/db.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { AuthUser } from '../auth/user.ts';
import type { DashboardContext } from '../context.ts';
import { SlugTaken, takenSlugs } from '../dashboards/store.ts';
import { listDataSources } from '../datasources/store.ts';
import { conflict, validation } from '../errors.ts';
import { applyDashboard } from '../provision/apply.ts';
import { ProvisioningError } from '../provision/format.ts';
import type { ImportBody, Imported } from './schemas.ts';

type Context = Pick<DashboardContext, 'db'>;
type Body = Static<typeof ImportBody>;
type Result = Static<typeof Imported>['dashboards'];

/**
 * Makes the bundle's dashboards in the caller's tenant, all or none: their data sources are the tenant's with the
 * same slugs, their SQL within those sources' sqlRole. A slug already taken is 409 unless `overwrite`.
 */
export async function importDashboards(
  ctx: Context,
  request: FastifyRequest,
  body: Body,
  overwrite: boolean,
): Promise<Result> {
  const me = currentUser(request);
  const slugs = checkBundle(body);
  return ctx.db
    .transaction(async (tx) => {
      if (!overwrite) await refuseTaken(tx, me.tenantId, slugs);
      return applyAll(tx, me, body.dashboards);
    })
    .catch((err: unknown) => {
      if (err instanceof ProvisioningError) throw validation(err.field ? `${err.field}: ${err.problem}` : err.problem);
      // Another import or create took the slug between the check and the insert.
      if (err instanceof SlugTaken) throw conflict(err.message);
      throw err;
    });
}

/** The bundle's slugs; refuses data sources (their URLs are secrets), a tenant, and a slug given twice. */
function checkBundle(body: Body): string[] {
  if (body.dataSources !== undefined)
    throw validation(
      'dataSources: data sources are not imported (their connection URLs are secrets): an admin adds them under Data sources with the slugs the dashboards name, or an operator provisions them',
    );
  if (body.tenant !== undefined) throw validation('tenant: an import goes into your own tenant; remove the field');
  const seen = new Set<string>();
  body.dashboards.forEach((d, i) => {
    if (seen.has(d.slug)) throw validation(`dashboards[${i}].slug: "${d.slug}" appears twice in the import`);
    seen.add(d.slug);
  });
  return [...seen];
}

async function refuseTaken(tx: Queryable, tenantId: number, slugs: string[]): Promise<void> {
  const taken = await takenSlugs(tx, tenantId, slugs);
  if (taken.length)
    throw conflict(
      `a dashboard with slug ${taken.map((s) => `"${s}"`).join(', ')} already exists in this tenant; import with overwrite=true to replace it (a new version), or change the slug`,
    );
}

async function applyAll(tx: Queryable, me: AuthUser, dashboards: Body['dashboards']): Promise<Result> {
  const slugToId = new Map((await listDataSources(tx, me.tenantId, {})).map((s) => [s.slug, s.id]));
  const input = {
    tenantId: me.tenantId,
    bundle: {},
    origin: 'import',
    mode: 'sync' as const,
    userId: me.id,
    role: me.role,
  };
  const out: Result = [];
  for (const [i, d] of dashboards.entries()) {
    const { row, outcome } = await applyDashboard(tx, input, d, `dashboards[${i}]`, slugToId);
    out.push({ id: row!.id, slug: row!.slug, title: row!.title, version: row!.version, outcome });
  }
  return out;
}
