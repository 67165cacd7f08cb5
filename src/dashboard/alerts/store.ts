import { visibleSql, type Who } from '../dashboards/access.ts';
import type { Queryable } from '../../kit/db.ts';
import type { AlertState, ConditionOp } from './condition.ts';

export interface AlertRuleRow {
  id: number;
  tenant_id: number;
  owner_id: number;
  name: string;
  saved_query_id: number | null;
  dashboard_id: number | null;
  widget_id: string | null;
  value_column: string | null;
  parameters: Record<string, string | number | boolean>;
  condition_op: ConditionOp;
  threshold: number | null;
  threshold_high: number | null;
  interval_minutes: number;
  pending_minutes: number;
  repeat_minutes: number | null;
  enabled: boolean;
  silenced_until: Date | null;
  state: AlertState;
  state_since: Date;
  pending_since: Date | null;
  last_notified_at: Date | null;
  last_value: number | null;
  last_error: string | null;
  last_evaluated_at: Date | null;
  next_eval_at: Date;
  channel_ids: number[];
  created_at: Date;
  updated_at: Date;
}

export const RULE_COLUMNS = `r.id::int AS id, r.tenant_id::int AS tenant_id, r.owner_id::int AS owner_id, r.name,
  r.saved_query_id::int AS saved_query_id, r.dashboard_id::int AS dashboard_id, r.widget_id, r.value_column, r.parameters,
  r.condition_op, r.threshold, r.threshold_high, r.interval_minutes, r.pending_minutes, r.repeat_minutes, r.enabled,
  r.silenced_until, r.state, r.state_since, r.pending_since, r.last_notified_at, r.last_value, r.last_error, r.last_evaluated_at, r.next_eval_at,
  COALESCE((SELECT array_agg(c.channel_id::int ORDER BY c.channel_id) FROM alert_rule_channels c WHERE c.rule_id = r.id), '{}') AS channel_ids,
  r.created_at, r.updated_at`;

export interface RuleFields {
  name: string;
  savedQueryId: number | null;
  dashboardId: number | null;
  widgetId: string | null;
  valueColumn: string | null;
  parameters: Record<string, string | number | boolean>;
  op: ConditionOp;
  threshold: number | null;
  thresholdHigh: number | null;
  intervalMinutes: number;
  pendingMinutes: number;
  repeatMinutes: number | null;
  enabled: boolean;
  channelIds: number[];
}

/**
 * A rule on a dashboard's widget is seen only by those who may see the dashboard (dashboards/access.ts): `$n` the
 * caller's id when the rule needs it.
 */
function onVisibleDashboard(who: Who, params: unknown[]): string {
  const visible = visibleSql(who, () => params.push(who.id), 'd');
  return visible
    ? `AND (r.dashboard_id IS NULL OR EXISTS (SELECT 1 FROM dashboards d WHERE d.id = r.dashboard_id AND ${visible}))`
    : '';
}

export async function getRule(db: Queryable, who: Who, id: number): Promise<AlertRuleRow | undefined> {
  const params: unknown[] = [who.tenantId, id];
  const r = await db.query<AlertRuleRow>(
    `SELECT ${RULE_COLUMNS} FROM alert_rules r WHERE r.tenant_id = $1 AND r.id = $2 ${onVisibleDashboard(who, params)}`,
    params,
  );
  return r.rows[0];
}

export async function listRules(
  db: Queryable,
  who: Who,
  page: { limit: number; after: number; dashboardId?: number | undefined },
): Promise<AlertRuleRow[]> {
  const params: unknown[] = [who.tenantId, page.after, page.dashboardId ?? null, page.limit];
  const r = await db.query<AlertRuleRow>(
    `SELECT ${RULE_COLUMNS} FROM alert_rules r WHERE r.tenant_id = $1 AND r.id > $2
       AND ($3::bigint IS NULL OR r.dashboard_id = $3) ${onVisibleDashboard(who, params)} ORDER BY r.id LIMIT $4`,
    params,
  );
  return r.rows;
}

async function setChannels(db: Queryable, ruleId: number, channelIds: number[]): Promise<void> {
  await db.query('DELETE FROM alert_rule_channels WHERE rule_id = $1', [ruleId]);
  if (channelIds.length)
    await db.query(
      'INSERT INTO alert_rule_channels (rule_id, channel_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING',
      [ruleId, channelIds],
    );
}

export async function insertRule(db: Queryable, tenantId: number, ownerId: number, f: RuleFields): Promise<number> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO alert_rules (tenant_id, owner_id, name, saved_query_id, dashboard_id, widget_id, value_column,
       condition_op, threshold, threshold_high, interval_minutes, pending_minutes, enabled, parameters, repeat_minutes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id::int AS id`,
    [
      tenantId,
      ownerId,
      f.name,
      f.savedQueryId,
      f.dashboardId,
      f.widgetId,
      f.valueColumn,
      f.op,
      f.threshold,
      f.thresholdHigh,
      f.intervalMinutes,
      f.pendingMinutes,
      f.enabled,
      JSON.stringify(f.parameters),
      f.repeatMinutes,
    ],
  );
  const id = r.rows[0]!.id;
  await setChannels(db, id, f.channelIds);
  return id;
}

/**
 * A changed rule starts over: state ok, evaluated at the next tick, so an old pending period never carries across;
 * its reminder clock too (the next notification is a change of state, which starts it again).
 */
export async function updateRule(db: Queryable, id: number, f: RuleFields): Promise<void> {
  await db.query(
    `UPDATE alert_rules SET name = $2, saved_query_id = $3, dashboard_id = $4, widget_id = $5, value_column = $6,
       condition_op = $7, threshold = $8, threshold_high = $9, interval_minutes = $10, pending_minutes = $11,
       enabled = $12, parameters = $13, repeat_minutes = $14, state = 'ok', state_since = now(), pending_since = NULL,
       last_notified_at = NULL, next_eval_at = now(), updated_at = now()
     WHERE id = $1`,
    [
      id,
      f.name,
      f.savedQueryId,
      f.dashboardId,
      f.widgetId,
      f.valueColumn,
      f.op,
      f.threshold,
      f.thresholdHigh,
      f.intervalMinutes,
      f.pendingMinutes,
      f.enabled,
      JSON.stringify(f.parameters),
      f.repeatMinutes,
    ],
  );
  await setChannels(db, id, f.channelIds);
}

export async function deleteRule(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM alert_rules WHERE id = $1', [id]);
}

export async function setSilence(db: Queryable, id: number, until: Date | null): Promise<void> {
  await db.query('UPDATE alert_rules SET silenced_until = $2, updated_at = now() WHERE id = $1', [id, until]);
}

export interface HistoryRow {
  id: number;
  from_state: AlertState;
  to_state: AlertState;
  value: number | null;
  reason: string;
  at: Date;
}

export async function listHistory(
  db: Queryable,
  ruleId: number,
  page: { limit: number; before: number | null },
): Promise<HistoryRow[]> {
  const r = await db.query<HistoryRow>(
    `SELECT id::int AS id, from_state, to_state, value, reason, at FROM alert_state_history
      WHERE rule_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [ruleId, page.before, page.limit],
  );
  return r.rows;
}
