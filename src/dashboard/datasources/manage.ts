import type { FastifyRequest } from 'fastify';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflictOn } from '../errors.ts';
import { dataSourceOf } from '../lookup.ts';
import type { TestOutcome } from '../sql/runner.ts';
import {
  DataSourceSlugTaken,
  deleteDataSource,
  insertDataSource,
  markConnected,
  nextDataSourceId,
  updateDataSource,
  type DataSourceRow,
} from './store.ts';
import { newValues, requireUrl, updatedValues, type CreateBody, type UpdateBody } from './values.ts';

type Context = Pick<DashboardContext, 'db' | 'sql'>;

/** Fields that reach the pool: changing one closes the source's open connections. */
const CONNECTION_FIELDS = [
  'type',
  'connectionUrl',
  'connectionUrlEnv',
  'maxConnections',
  'queryTimeoutSeconds',
  'readOnly',
  'sslEnabled',
  'active',
] as const;

/** Creates a source of the caller's tenant, its URL sealed bound to the id it gets; audited without the URL. */
export async function createSource(ctx: Context, request: FastifyRequest, body: CreateBody): Promise<DataSourceRow> {
  requireUrl(body);
  return ctx.db.transaction(async (tx) => {
    const id = await nextDataSourceId(tx);
    const values = newValues(id, body, ctx.sql.urls);
    const row = await insertDataSource(tx, id, currentUser(request).tenantId, values).catch(
      conflictOn(DataSourceSlugTaken),
    );
    await recordAudit(tx, {
      ...actor(request),
      action: 'datasource.create',
      targetType: 'datasource',
      targetId: id,
      details: {
        slug: body.slug,
        type: body.type,
        fields: Object.keys(body).filter((k) => k !== 'connectionUrl'),
        connectionUrl: body.connectionUrl !== undefined ? 'set' : undefined,
      },
    });
    return row;
  });
}

/** Changes the given fields; new connection settings close the source's pool, any change its opened settings. */
export async function updateSource(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: UpdateBody,
): Promise<DataSourceRow> {
  const row = await ctx.db.transaction(async (tx) => {
    const current = await dataSourceOf(tx, currentUser(request).tenantId, id, true);
    const updated = await updateDataSource(tx, current.id, updatedValues(current, body, ctx.sql.urls)).catch(
      conflictOn(DataSourceSlugTaken),
    );
    await recordAudit(tx, {
      ...actor(request),
      action: 'datasource.update',
      targetType: 'datasource',
      targetId: current.id,
      details: {
        fields: Object.keys(body),
        ...(body.active !== undefined ? { active: body.active } : {}),
        ...(body.readOnly !== undefined ? { readOnly: body.readOnly } : {}),
        ...(body.sqlRole !== undefined ? { sqlRole: body.sqlRole } : {}),
      },
    });
    return updated;
  });
  if (CONNECTION_FIELDS.some((f) => body[f] !== undefined)) await ctx.sql.forget(row.id);
  else ctx.sql.changed(row.id);
  return row;
}

/** Deletes a source and its saved queries; its open connections are closed first. */
export async function deleteSource(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const row = await dataSourceOf(ctx.db, currentUser(request).tenantId, id);
  await ctx.sql.forget(row.id);
  await ctx.db.transaction(async (tx) => {
    await deleteDataSource(tx, row.id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'datasource.delete',
      targetType: 'datasource',
      targetId: row.id,
      details: { name: row.name, slug: row.slug, type: row.type },
    });
  });
  // A query that started meanwhile may have opened a new pool; it goes too.
  await ctx.sql.forget(row.id);
}

/** A fresh connection's test; success is remembered as lastConnectedAt, every test in the audit log. */
export async function testSource(ctx: Context, request: FastifyRequest, id: number): Promise<TestOutcome> {
  const row = await dataSourceOf(ctx.db, currentUser(request).tenantId, id);
  const outcome = await ctx.sql.test(row);
  if (outcome.success) await markConnected(ctx.db, row.id);
  await recordAudit(ctx.db, {
    ...actor(request),
    action: 'datasource.test',
    targetType: 'datasource',
    targetId: row.id,
    details: { success: outcome.success },
  });
  return outcome;
}
