import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { linkOf, turnSharingOff, turnSharingOn } from './manage.ts';
import { Share } from './schemas.ts';
import { findShare } from './store.ts';

const tags = ['sharing'];

/** A dashboard's public link: shown, turned on and off by editors. */
export function registerShareLinkRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'getDashboardShare',
        tags,
        security: bearer,
        summary: "The dashboard's public link, if it has one (editors)",
        params: IdParams,
        response: { 200: Share, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      const { tenantId } = me;
      // The link is the dashboard's publication: only those who may change the dashboard see or make it.
      await dashboardFor(ctx.db, me, request.params.id, { edit: true });
      const row = await findShare(ctx.db, tenantId, request.params.id);
      return row ? { shared: true, ...linkOf(ctx, row) } : { shared: false };
    },
  );

  app.put(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'shareDashboard',
        tags,
        security: bearer,
        summary: 'Turn the public link on (201 with the link), or answer the link it already has (200)',
        params: IdParams,
        response: { 200: Share, 201: Share, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { row, created } = await turnSharingOn(ctx, request, request.params.id);
      return reply.code(created ? 201 : 200).send({ shared: true, ...linkOf(ctx, row) });
    },
  );

  app.delete(
    '/api/v1/dashboards/:id/share',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'unshareDashboard',
        tags,
        security: bearer,
        summary: 'Turn the public link off: it stops working at once; turning sharing on again makes a new link',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await turnSharingOff(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
