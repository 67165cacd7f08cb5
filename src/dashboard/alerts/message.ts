import { describeCondition, type Transition } from './condition.ts';
import type { AlertRuleRow } from './store.ts';

/** A notification's content, as queued in the outbox and sent to every channel (notifications/compose.ts). */
export interface AlertPayload {
  type: string;
  timestamp: string;
  data: {
    rule: { id: number; name: string; url: string };
    dashboard: { id: number; widgetId: string; url: string } | null;
    state: string;
    previousState: string;
    value: number | null;
    condition: string;
    reason: string;
    /** A reminder that the rule is still in `state` (its repeat interval), not a change: the same `type` as the change. */
    reminder: boolean;
    /** Where the person goes from the notification: the dashboard the rule watches, else the rule's page. */
    url: string;
  };
}

/**
 * Standard Webhooks' shape `{type, timestamp, data}`: the event type is `alert.firing`, `alert.resolved`, … A reminder
 * keeps its state's type, so a receiver that routes by type routes it the same way, and says so in `data.reminder`
 * and in its reason (since when, how often).
 */
export function alertPayload(rule: AlertRuleRow, t: Transition, publicUrl: string, reminder = false): AlertPayload {
  const ruleUrl = `${publicUrl}/alerts/${rule.id}`;
  const dashboard =
    rule.dashboard_id !== null
      ? { id: rule.dashboard_id, widgetId: rule.widget_id!, url: `${publicUrl}/dashboards/${rule.dashboard_id}` }
      : null;
  return {
    type: `alert.${reminder ? t.state : t.notify}`,
    timestamp: new Date().toISOString(),
    data: {
      rule: { id: rule.id, name: rule.name, url: ruleUrl },
      dashboard,
      state: t.state,
      previousState: rule.state,
      value: t.value,
      condition: describeCondition({
        op: rule.condition_op,
        threshold: rule.threshold,
        thresholdHigh: rule.threshold_high,
      }),
      reason: reminder
        ? `${t.reason}; ${t.state} since ${rule.state_since.toISOString()}, a reminder every ${rule.repeat_minutes} min`
        : t.reason,
      reminder,
      url: dashboard?.url ?? ruleUrl,
    },
  };
}

/** The payload of a test notification sent from the form: marked as a test in its type and its words. */
export function testPayload(name: string, publicUrl: string): AlertPayload {
  return {
    type: 'alert.test',
    timestamp: new Date().toISOString(),
    data: {
      rule: { id: 0, name, url: `${publicUrl}/alerts` },
      dashboard: null,
      state: 'test',
      previousState: 'ok',
      value: null,
      condition: 'test',
      reason: 'This is a test notification sent from the alert rule form.',
      reminder: false,
      url: `${publicUrl}/alerts`,
    },
  };
}
