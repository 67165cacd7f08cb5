import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { notFound, validation } from '../errors.ts';
import type { Who } from '../dashboards/access.ts';
import { dashboardFor, savedQueryOf } from '../lookup.ts';
import { unknownChannels } from '../notifications/store.ts';
import type { AlertRuleBody } from './schemas.ts';
import {
  deleteRule,
  getRule,
  insertRule,
  setSilence,
  updateRule,
  type AlertRuleRow,
  type RuleFields,
} from './store.ts';

type Context = Pick<DashboardContext, 'db'>;
type Body = Static<typeof AlertRuleBody>;

export async function ruleOf(ctx: Context, who: Who, id: number): Promise<AlertRuleRow> {
  const row = await getRule(ctx.db, who, id);
  if (!row) throw notFound('alert rule');
  return row;
}

/**
 * What the schema cannot say: one target (a saved query, or a dashboard's widget), a condition with its bounds, a
 * repeat no shorter than the interval, known channels.
 */
async function fieldsOf(ctx: Context, me: Who, b: Body): Promise<RuleFields> {
  const onWidget = b.dashboardId !== undefined || b.widgetId !== undefined;
  if ((b.savedQueryId !== undefined) === onWidget)
    throw validation('give either savedQueryId, or dashboardId with widgetId: what the rule watches');
  if (onWidget) {
    if (b.dashboardId === undefined || b.widgetId === undefined)
      throw validation('dashboardId and widgetId go together');
    const dashboard = await dashboardFor(ctx.db, me, b.dashboardId);
    const widget = dashboard.definition.widgets.find((w) => w.id === b.widgetId);
    if (!widget) throw validation(`widgetId: the dashboard has no widget "${b.widgetId}"`);
    if (widget.savedQueryId === undefined && widget.query === undefined)
      throw validation(`widgetId: the widget "${b.widgetId}" has no query`);
  } else await savedQueryOf(ctx.db, me.tenantId, b.savedQueryId!);
  const { op, threshold, thresholdHigh } = b.condition;
  if ((op === 'above' || op === 'below') && threshold === undefined)
    throw validation(`condition.threshold: required when the condition is ${op}`);
  if (op === 'outside') {
    if (threshold === undefined || thresholdHigh === undefined)
      throw validation('condition.threshold and condition.thresholdHigh: both required when the condition is outside');
    if (threshold >= thresholdHigh)
      throw validation('condition.thresholdHigh: must be greater than condition.threshold');
  }
  const repeatMinutes = b.repeatMinutes ?? null;
  // A reminder comes with an evaluation: one asked for more often than that could never be kept.
  if (repeatMinutes !== null && repeatMinutes < b.intervalMinutes)
    throw validation(
      `repeatMinutes: must be at least intervalMinutes (${b.intervalMinutes}): a reminder comes with an evaluation`,
    );
  const channelIds = b.channelIds ?? [];
  const unknown = await unknownChannels(ctx.db, me.tenantId, channelIds);
  if (unknown.length) throw validation(`channelIds: no channel ${unknown.join(', ')} in this tenant`);
  return {
    name: b.name.trim(),
    savedQueryId: b.savedQueryId ?? null,
    dashboardId: b.dashboardId ?? null,
    widgetId: b.widgetId ?? null,
    valueColumn: b.valueColumn ?? null,
    parameters: b.parameters ?? {},
    op,
    threshold: op === 'no_data' ? null : (threshold ?? null),
    thresholdHigh: op === 'outside' ? (thresholdHigh ?? null) : null,
    intervalMinutes: b.intervalMinutes,
    pendingMinutes: b.pendingMinutes ?? 0,
    repeatMinutes,
    enabled: b.enabled ?? true,
    channelIds,
  };
}

export async function createRule(ctx: Context, request: FastifyRequest, body: Body): Promise<AlertRuleRow> {
  const me = currentUser(request);
  const fields = await fieldsOf(ctx, me, body);
  const id = await ctx.db.transaction(async (tx) => {
    const id = await insertRule(tx, me.tenantId, me.id, fields);
    await recordAudit(tx, {
      ...actor(request),
      action: 'alertrule.create',
      targetType: 'alertrule',
      targetId: id,
      details: { name: fields.name },
    });
    return id;
  });
  return ruleOf(ctx, me, id);
}

/** A rule saved again runs with its saver's rights from then on (the saver may have chosen another query). */
export async function changeRule(ctx: Context, request: FastifyRequest, id: number, body: Body): Promise<AlertRuleRow> {
  const me = currentUser(request);
  await ruleOf(ctx, me, id);
  const fields = await fieldsOf(ctx, me, body);
  await ctx.db.transaction(async (tx) => {
    await updateRule(tx, id, fields);
    await tx.query('UPDATE alert_rules SET owner_id = $2 WHERE id = $1', [id, me.id]);
    await recordAudit(tx, {
      ...actor(request),
      action: 'alertrule.update',
      targetType: 'alertrule',
      targetId: id,
      details: { name: fields.name },
    });
  });
  return ruleOf(ctx, me, id);
}

export async function removeRule(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const me = currentUser(request);
  const rule = await ruleOf(ctx, me, id);
  await ctx.db.transaction(async (tx) => {
    await deleteRule(tx, id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'alertrule.delete',
      targetType: 'alertrule',
      targetId: id,
      details: { name: rule.name },
    });
  });
}

/** Silences notifications for `minutes` (null: lifts the silence); evaluation and history go on. */
export async function silenceRule(
  ctx: Context,
  request: FastifyRequest,
  id: number,
  minutes: number | null,
): Promise<AlertRuleRow> {
  const me = currentUser(request);
  await ruleOf(ctx, me, id);
  const until = minutes === null ? null : new Date(Date.now() + minutes * 60_000);
  await ctx.db.transaction(async (tx) => {
    await setSilence(tx, id, until);
    await recordAudit(tx, {
      ...actor(request),
      action: minutes === null ? 'alertrule.unsilence' : 'alertrule.silence',
      targetType: 'alertrule',
      targetId: id,
      details: until ? { until: until.toISOString() } : {},
    });
  });
  return ruleOf(ctx, me, id);
}
