import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { dataSourceOf, savedQueryOf } from '../lookup.ts';
import { checkSqlAuthor } from '../sql/authors.ts';
import type { DataSourceType } from '../sql/driver.ts';
import { checkStatement, StatementError } from '../sql/statement.ts';
import type { CreateSavedQueryBody, UpdateSavedQueryBody } from './schemas.ts';
import { deleteSavedQuery, insertSavedQuery, updateSavedQuery, type SavedQueryRow } from './store.ts';

type Context = Pick<DashboardContext, 'db'>;

/** One statement the source's dialect can run, checked when it is saved (the run checks the rest). */
function checkText(query: string, type: DataSourceType): void {
  try {
    checkStatement(query, type);
  } catch (err) {
    if (err instanceof StatementError) throw validation(err.message);
    throw err;
  }
}

/** Saves a query on a source whose sqlRole allows the caller to write SQL. */
export async function createSaved(
  ctx: Context,
  request: FastifyRequest,
  body: Static<typeof CreateSavedQueryBody>,
): Promise<SavedQueryRow> {
  const me = currentUser(request);
  const source = await dataSourceOf(ctx.db, me.tenantId, body.dataSourceId);
  checkSqlAuthor(me, source, 'query');
  checkText(body.query, source.type);
  return ctx.db.transaction(async (tx) => {
    const created = await insertSavedQuery(tx, {
      tenantId: me.tenantId,
      dataSourceId: body.dataSourceId,
      name: body.name.trim(),
      description: body.description ?? null,
      query: body.query,
      createdBy: me.id,
    });
    await recordAudit(tx, {
      ...actor(request),
      action: 'savedquery.create',
      targetType: 'savedquery',
      targetId: created.id,
      details: { name: created.name, dataSourceId: body.dataSourceId, query: body.query },
    });
    return created;
  });
}

/** Changes the given fields; new text or another source is authorship, checked as on create. */
export async function updateSaved(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: Static<typeof UpdateSavedQueryBody>,
): Promise<SavedQueryRow> {
  const me = currentUser(request);
  const current = await savedQueryOf(ctx.db, me.tenantId, id);
  const source = await dataSourceOf(ctx.db, me.tenantId, body.dataSourceId ?? current.data_source_id);
  if (body.query !== undefined || body.dataSourceId !== undefined) {
    checkSqlAuthor(me, source, body.query !== undefined ? 'query' : 'dataSourceId');
    checkText(body.query ?? current.query, source.type);
  }
  return ctx.db.transaction(async (tx) => {
    const updated = await updateSavedQuery(tx, current.id, {
      dataSourceId: body.dataSourceId ?? current.data_source_id,
      name: body.name?.trim() ?? current.name,
      description: body.description === undefined ? current.description : body.description,
      query: body.query ?? current.query,
      updatedBy: me.id,
    });
    await recordAudit(tx, {
      ...actor(request),
      action: 'savedquery.update',
      targetType: 'savedquery',
      targetId: current.id,
      details: { fields: Object.keys(body), ...(body.query !== undefined ? { query: body.query } : {}) },
    });
    return updated;
  });
}

export async function deleteSaved(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const current = await savedQueryOf(ctx.db, currentUser(request).tenantId, id);
  await ctx.db.transaction(async (tx) => {
    await deleteSavedQuery(tx, current.id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'savedquery.delete',
      targetType: 'savedquery',
      targetId: current.id,
      details: { name: current.name },
    });
  });
}
