import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflictOn, notFound } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import { checkWidgetSql } from '../sql/authors.ts';
import { checkDefinition } from './definition.ts';
import { checkIfMatch } from './etag.ts';
import { checkTags } from './tags.ts';
import type { CreateDashboardBody, UpdateDashboardBody } from './schemas.ts';
import {
  deleteDashboard,
  getVersion,
  insertDashboard,
  SlugTaken,
  updateDashboard,
  type DashboardRow,
} from './store.ts';

type Context = Pick<DashboardContext, 'db'>;

/** Version 1 of a new dashboard; its widgets' SQL within their sources' sqlRole. */
export async function createDashboard(
  ctx: Context,
  request: FastifyRequest,
  body: Static<typeof CreateDashboardBody>,
): Promise<DashboardRow> {
  const me = currentUser(request);
  const { slug, title, description, definition } = body;
  checkDefinition(definition);
  const tags = checkTags(body.tags ?? []);
  await checkWidgetSql(ctx.db, me, definition);
  return ctx.db.transaction(async (tx) => {
    const created = await insertDashboard(tx, {
      tenantId: me.tenantId,
      userId: me.id,
      slug,
      title: title.trim(),
      description: description ?? null,
      definition,
      tags,
    }).catch(conflictOn(SlugTaken));
    await recordAudit(tx, {
      ...actor(request),
      action: 'dashboard.create',
      targetType: 'dashboard',
      targetId: created.id,
      details: { slug, title: created.title },
    });
    return created;
  });
}

/** A new version with the fields given; refused 412 when If-Match names an earlier one. */
export async function changeDashboard(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: Static<typeof UpdateDashboardBody>,
): Promise<DashboardRow> {
  const me = currentUser(request);
  if (body.definition) checkDefinition(body.definition);
  const tags = body.tags && checkTags(body.tags);
  return ctx.db.transaction(async (tx) => {
    const current = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    checkIfMatch(request, current);
    if (body.definition) await checkWidgetSql(tx, me, body.definition, current.definition);
    const next = {
      slug: body.slug ?? current.slug,
      title: body.title?.trim() ?? current.title,
      description: body.description === undefined ? current.description : body.description,
      definition: body.definition ?? current.definition,
      tags,
    };
    const updated = await updateDashboard(tx, current, next, me.id).catch(conflictOn(SlugTaken));
    await recordAudit(tx, {
      ...actor(request),
      action: 'dashboard.update',
      targetType: 'dashboard',
      targetId: current.id,
      details: { fields: Object.keys(body), version: updated.version },
    });
    return updated;
  });
}

/** Deletes the dashboard and its versions, unless If-Match names an earlier version. */
export async function removeDashboard(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const me = currentUser(request);
  await ctx.db.transaction(async (tx) => {
    const current = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    checkIfMatch(request, current);
    await deleteDashboard(tx, me.tenantId, current.id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'dashboard.delete',
      targetType: 'dashboard',
      targetId: current.id,
      details: { slug: current.slug, title: current.title, version: current.version },
    });
  });
}

/** An earlier version's title, description and definition as a new version; the slug stays. */
export async function restoreVersion(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  version: number,
): Promise<DashboardRow> {
  const me = currentUser(request);
  return ctx.db.transaction(async (tx) => {
    const current = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    checkIfMatch(request, current);
    const v = await getVersion(tx, current.id, version);
    if (!v) throw notFound('version');
    await checkWidgetSql(tx, me, v.definition, current.definition);
    const { title, description, definition } = v;
    const updated = await updateDashboard(
      tx,
      current,
      { slug: current.slug, title, description, definition },
      me.id,
      v.version,
    );
    await recordAudit(tx, {
      ...actor(request),
      action: 'dashboard.restore',
      targetType: 'dashboard',
      targetId: current.id,
      details: { restoredVersion: v.version, version: updated.version },
    });
    return updated;
  });
}
