import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { notFound, validation } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import { checkPictureValues } from '../render/values.ts';
import { isTimeZone, nextRun } from './schedule.ts';
import type { SubscriptionBody } from './schemas.ts';
import {
  deleteSubscription,
  getSubscription,
  insertSubscription,
  updateSubscription,
  type SubscriptionFields,
  type SubscriptionRow,
} from './store.ts';

type Context = Pick<DashboardContext, 'db'>;
type Body = Static<typeof SubscriptionBody>;

export async function subscriptionOf(ctx: Context, tenantId: number, id: number): Promise<SubscriptionRow> {
  const row = await getSubscription(ctx.db, tenantId, id);
  if (!row) throw notFound('subscription');
  return row;
}

/** What the schema cannot say: a real time zone, someone to send to, users of the tenant, parameters the dashboard has. */
async function fieldsOf(ctx: Context, tenantId: number, dashboard: DashboardRow, b: Body): Promise<SubscriptionFields> {
  const timezone = b.schedule.timezone ?? 'UTC';
  if (!isTimeZone(timezone))
    throw validation(`schedule.timezone: "${timezone}" is not an IANA time zone such as Europe/Paris`);
  const userIds = b.recipients.userIds ?? [];
  const addresses = (b.recipients.addresses ?? []).map((a) => a.trim());
  if (userIds.length + addresses.length === 0) throw validation('recipients: choose at least one user or address');
  if (userIds.length) {
    const r = await ctx.db.query<{ id: number }>(
      `SELECT id::int AS id FROM users WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
      [tenantId, userIds],
    );
    const known = new Set(r.rows.map((u) => u.id));
    const unknown = userIds.filter((id) => !known.has(id));
    if (unknown.length) throw validation(`recipients.userIds: no active user ${unknown.join(', ')} in this tenant`);
  }
  const parameters = b.parameters ?? {};
  checkPictureValues(dashboard, parameters);
  const schedule = {
    frequency: b.schedule.frequency,
    minute: b.schedule.minute ?? 0,
    hour: b.schedule.hour ?? 8,
    weekday: b.schedule.weekday ?? 1,
    timezone,
  };
  return {
    ...schedule,
    userIds,
    addresses,
    parameters,
    enabled: b.enabled ?? true,
    nextRunAt: nextRun(schedule, new Date()),
  };
}

export async function createSubscription(
  ctx: Context,
  request: FastifyRequest,
  dashboardId: number,
  body: Body,
): Promise<SubscriptionRow> {
  const me = currentUser(request);
  const dashboard = await dashboardFor(ctx.db, me, dashboardId);
  const fields = await fieldsOf(ctx, me.tenantId, dashboard, body);
  const id = await ctx.db.transaction(async (tx) => {
    const id = await insertSubscription(tx, me.tenantId, dashboard.id, me.id, fields);
    await recordAudit(tx, {
      ...actor(request),
      action: 'subscription.create',
      targetType: 'dashboard',
      targetId: dashboard.id,
      details: {
        subscriptionId: id,
        frequency: fields.frequency,
        recipients: fields.userIds.length + fields.addresses.length,
      },
    });
    return id;
  });
  return subscriptionOf(ctx, me.tenantId, id);
}

/** A subscription saved again sends the saver's view from then on. */
export async function changeSubscription(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  body: Body,
): Promise<SubscriptionRow> {
  const me = currentUser(request);
  const current = await subscriptionOf(ctx, me.tenantId, id);
  const dashboard = await dashboardFor(ctx.db, me, current.dashboard_id);
  const fields = await fieldsOf(ctx, me.tenantId, dashboard, body);
  await ctx.db.transaction(async (tx) => {
    await updateSubscription(tx, id, me.id, fields);
    await recordAudit(tx, {
      ...actor(request),
      action: 'subscription.update',
      targetType: 'dashboard',
      targetId: dashboard.id,
      details: { subscriptionId: id },
    });
  });
  return subscriptionOf(ctx, me.tenantId, id);
}

export async function removeSubscription(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const me = currentUser(request);
  const current = await subscriptionOf(ctx, me.tenantId, id);
  await ctx.db.transaction(async (tx) => {
    await deleteSubscription(tx, id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'subscription.delete',
      targetType: 'dashboard',
      targetId: current.dashboard_id,
      details: { subscriptionId: id },
    });
  });
}
