import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { changeSubscription, createSubscription, removeSubscription, subscriptionOf } from './manage.ts';
import { SendResult, Subscription, SubscriptionBody } from './schemas.ts';
import { sendSubscription, type SubscriptionDeps } from './send.ts';
import { listSubscriptions } from './store.ts';
import { subscription } from './view.ts';

const tags = ['subscriptions'];

/** A dashboard's email subscriptions (editors): a schedule, recipients and fixed parameters; "send now". */
export function registerSubscriptionRoutes(app: App, ctx: DashboardContext, deps: SubscriptionDeps): void {
  app.get(
    '/api/v1/dashboards/:id/subscriptions',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'listDashboardSubscriptions',
        tags,
        security: bearer,
        summary: "A dashboard's email subscriptions (editor)",
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(Subscription) }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const me = currentUser(request);
      const { tenantId } = me;
      const dashboard = await dashboardFor(ctx.db, me, request.params.id);
      return { items: (await listSubscriptions(ctx.db, tenantId, dashboard.id)).map(subscription) };
    },
  );

  app.post(
    '/api/v1/dashboards/:id/subscriptions',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'createDashboardSubscription',
        tags,
        security: bearer,
        summary: 'Mail the dashboard on a schedule (editor): a picture as you see it and its data as CSV',
        params: IdParams,
        body: SubscriptionBody,
        response: { 201: Subscription, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await createSubscription(ctx, request, request.params.id, request.body);
      reply.header('location', `/api/v1/subscriptions/${row.id}`);
      return reply.code(201).send(subscription(row));
    },
  );

  app.get(
    '/api/v1/subscriptions/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'getSubscription',
        tags,
        security: bearer,
        summary: 'A subscription (editor)',
        params: IdParams,
        response: { 200: Subscription, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => subscription(await subscriptionOf(ctx, currentUser(request).tenantId, request.params.id)),
  );

  app.put(
    '/api/v1/subscriptions/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'updateSubscription',
        tags,
        security: bearer,
        summary: 'Replace a subscription (editor); it then sends your view of the dashboard',
        params: IdParams,
        body: SubscriptionBody,
        response: { 200: Subscription, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => subscription(await changeSubscription(ctx, request, request.params.id, request.body)),
  );

  app.delete(
    '/api/v1/subscriptions/:id',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'deleteSubscription',
        tags,
        security: bearer,
        summary: 'Delete a subscription (editor)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await removeSubscription(ctx, request, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/subscriptions/:id/send',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'sendSubscriptionNow',
        tags,
        security: bearer,
        summary: 'Send a subscription now, outside its schedule (editor); answers how it went',
        params: IdParams,
        response: { 200: SendResult, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const row = await subscriptionOf(ctx, currentUser(request).tenantId, request.params.id);
      const outcome = await sendSubscription(deps, row);
      await ctx.db.query(
        `INSERT INTO subscription_runs (subscription_id, scheduled_for, status, detail, finished_at)
         VALUES ($1, now(), $2, $3, now()) ON CONFLICT DO NOTHING`,
        [row.id, outcome.ok ? 'sent' : 'failed', outcome.detail],
      );
      await ctx.db.query(
        `UPDATE dashboard_subscriptions SET last_sent_at = CASE WHEN $2 THEN now() ELSE last_sent_at END,
                last_error = CASE WHEN $2 THEN NULL ELSE $3 END WHERE id = $1`,
        [row.id, outcome.ok, outcome.detail],
      );
      return outcome;
    },
  );
}
