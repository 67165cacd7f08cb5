import type { Static } from 'typebox';
import type { AlertRule, HistoryEntry } from './schemas.ts';
import type { AlertRuleRow, HistoryRow } from './store.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function alertRule(r: AlertRuleRow): Static<typeof AlertRule> {
  return {
    id: r.id,
    name: r.name,
    ownerId: r.owner_id,
    savedQueryId: r.saved_query_id,
    dashboardId: r.dashboard_id,
    widgetId: r.widget_id,
    valueColumn: r.value_column,
    parameters: r.parameters,
    condition: { op: r.condition_op, threshold: r.threshold, thresholdHigh: r.threshold_high },
    intervalMinutes: r.interval_minutes,
    pendingMinutes: r.pending_minutes,
    repeatMinutes: r.repeat_minutes,
    enabled: r.enabled,
    channelIds: r.channel_ids,
    state: r.state,
    stateSince: r.state_since.toISOString(),
    lastNotifiedAt: iso(r.last_notified_at),
    silencedUntil: r.silenced_until && r.silenced_until > new Date() ? r.silenced_until.toISOString() : null,
    lastValue: r.last_value,
    lastError: r.last_error,
    lastEvaluatedAt: iso(r.last_evaluated_at),
    nextEvaluationAt: r.next_eval_at.toISOString(),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export const historyEntry = (h: HistoryRow): Static<typeof HistoryEntry> => ({
  id: h.id,
  from: h.from_state,
  to: h.to_state,
  value: h.value,
  reason: h.reason,
  at: h.at.toISOString(),
});
