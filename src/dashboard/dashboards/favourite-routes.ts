import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { setFavourite } from './store.ts';

const tags = ['dashboards'];

/**
 * Each person's favourites (Grafana's "starred"): anyone who may read a dashboard may mark it for themselves. Not a
 * change to the dashboard: no version, no ETag change, no audit entry (as Grafana's stars).
 */
export function registerFavouriteRoutes(app: App, ctx: DashboardContext): void {
  const schema = (on: boolean) => ({
    operationId: on ? 'favouriteDashboard' : 'unfavouriteDashboard',
    tags,
    security: bearer,
    summary: on
      ? "Mark the dashboard as one of the caller's favourites (idempotent)"
      : "Remove the dashboard from the caller's favourites (idempotent)",
    params: IdParams,
    response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 429) },
  });
  const mark = async (request: FastifyRequest, id: number, on: boolean) => {
    const me = currentUser(request);
    const row = await dashboardFor(ctx.db, me, id);
    await setFavourite(ctx.db, me.id, row.id, on);
  };
  app.put(
    '/api/v1/dashboards/:id/favourite',
    { config: { access: signedIn('viewer') }, schema: schema(true) },
    async (request, reply) => {
      await mark(request, request.params.id, true);
      return reply.code(204).send(null);
    },
  );
  app.delete(
    '/api/v1/dashboards/:id/favourite',
    { config: { access: signedIn('viewer') }, schema: schema(false) },
    async (request, reply) => {
      await mark(request, request.params.id, false);
      return reply.code(204).send(null);
    },
  );
}
