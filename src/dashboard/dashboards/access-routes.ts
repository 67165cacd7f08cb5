import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { actor, recordAudit } from '../audit/record.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { canEdit, type Who } from './access.ts';
import { DashboardAccess, DashboardAccessBody } from './schemas.ts';
import { setAccess, type DashboardRow } from './store.ts';

const tags = ['dashboards'];

const accessOf = (r: DashboardRow, who: Who): Static<typeof DashboardAccess> => ({
  restricted: r.restricted,
  viewers: r.access_viewers,
  editors: r.access_editors,
  createdBy: r.created_by,
  mayEdit: canEdit(r, who),
});

/**
 * Who may see and change a dashboard (access.ts): read by anyone who sees it, set by anyone who may change it. The
 * people named must be active people of the tenant; someone in both lists is an editor. Audited, with the lists.
 */
export function registerAccessRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/dashboards/:id/access',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'getDashboardAccess',
        tags,
        security: bearer,
        summary: 'Who may see and change the dashboard',
        params: IdParams,
        response: { 200: DashboardAccess, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      return accessOf(await dashboardFor(ctx.db, me, request.params.id), me);
    },
  );

  app.put(
    '/api/v1/dashboards/:id/access',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'setDashboardAccess',
        tags,
        security: bearer,
        summary:
          "Restrict the dashboard to the tenant's admins, its creator and the people named, or open it to the whole tenant again (editors of the dashboard)",
        params: IdParams,
        body: DashboardAccessBody,
        response: { 200: DashboardAccess, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) =>
      accessOf(await changeAccess(ctx, request, request.params.id, request.body), currentUser(request)),
  );
}

async function changeAccess(
  ctx: Pick<DashboardContext, 'db'>,
  request: FastifyRequest,
  id: number,
  body: Static<typeof DashboardAccessBody>,
): Promise<DashboardRow> {
  const me = currentUser(request);
  const editors = body.editors ?? [];
  const viewers = (body.viewers ?? []).filter((u) => !editors.includes(u));
  return ctx.db.transaction(async (tx) => {
    const current = await dashboardFor(tx, me, id, { edit: true, forUpdate: true });
    const named = [...viewers, ...editors];
    const { rows } = await tx.query<{ id: number }>(
      'SELECT id FROM users WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active',
      [me.tenantId, named],
    );
    const known = new Set(rows.map((r) => r.id));
    const unknown = named.filter((u) => !known.has(u));
    if (unknown.length) throw validation(`not active people of this tenant: ${unknown.join(', ')}`);
    const updated = await setAccess(tx, current, { restricted: body.restricted, viewers, editors });
    await recordAudit(tx, {
      ...actor(request),
      action: 'dashboard.access',
      targetType: 'dashboard',
      targetId: current.id,
      details: { title: current.title, restricted: body.restricted, viewers, editors },
    });
    return updated;
  });
}
