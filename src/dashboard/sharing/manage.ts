import type { FastifyRequest } from 'fastify';
import { actor, recordAudit } from '../audit/record.ts';
import type { AuditAction } from '../audit/actions.ts';
import { currentUser } from '../auth/authenticate.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import { getDashboard, type DashboardRow } from '../dashboards/store.ts';
import { notFound } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import { deleteShare, ensureShare, shareByToken, shareToken, type ShareRow } from './store.ts';

type Context = Pick<DashboardContext, 'db' | 'secretKey' | 'config'>;

/** The link as editors see it: its URL (the token opened from its sealed copy), when and by whom it was made. */
export const linkOf = (ctx: Context, row: ShareRow) => ({
  url: `${dashboardPublicUrl(ctx.config)}/public/${shareToken(ctx.secretKey, row)}`,
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by,
});

/** Turns the dashboard's link on, or gives the one it has; only a new link is audited. */
export async function turnSharingOn(
  ctx: Context,
  request: FastifyRequest,
  id: number,
): Promise<{ row: ShareRow; created: boolean }> {
  const me = currentUser(request);
  return ctx.db.transaction(async (tx) => {
    const dashboard = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    const made = await ensureShare(tx, ctx.secretKey, me.tenantId, dashboard.id, me.id);
    if (made.created) await recordAudit(tx, shareRecord(request, dashboard, 'dashboard.share'));
    return made;
  });
}

/** Turns the link off: it stops working at once. */
export async function turnSharingOff(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const me = currentUser(request);
  await ctx.db.transaction(async (tx) => {
    const dashboard = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    if (!(await deleteShare(tx, me.tenantId, dashboard.id))) throw notFound('public link');
    await recordAudit(tx, shareRecord(request, dashboard, 'dashboard.unshare'));
  });
}

const shareRecord = (request: FastifyRequest, dashboard: DashboardRow, action: AuditAction) => ({
  ...actor(request),
  action,
  targetType: 'dashboard',
  targetId: dashboard.id,
  details: { title: dashboard.title },
});

/** The dashboard a link opens; one turned off, or never made, is 404 for the visitor. */
export async function sharedDashboard(ctx: Context, token: string): Promise<DashboardRow> {
  const share = await shareByToken(ctx.db, token);
  const dashboard = share && (await getDashboard(ctx.db, share.tenant_id, share.dashboard_id));
  if (!dashboard) throw notFound('shared dashboard (the link was turned off, or never existed)');
  return dashboard;
}
