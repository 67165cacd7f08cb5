import type { Database, Queryable } from '../../kit/db.ts';
import type { Transition } from './condition.ts';
import type { AlertPayload } from './message.ts';
import { RULE_COLUMNS, type AlertRuleRow } from './store.ts';

/**
 * Takes up to `limit` due rules for one instance: each gets the claim's token as its lease owner until `lease_until`.
 * SKIP LOCKED lets instances claim side by side without waiting on each other; a rule whose lease ran out (its
 * instance died or stalled) is due again and is taken over.
 */
export async function claimDueRules(
  db: Queryable,
  token: string,
  leaseSeconds: number,
  limit: number,
): Promise<AlertRuleRow[]> {
  const r = await db.query<AlertRuleRow>(
    `UPDATE alert_rules r SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
      WHERE r.id IN (SELECT id FROM alert_rules
                      WHERE enabled AND next_eval_at <= now() AND (lease_until IS NULL OR lease_until < now())
                      ORDER BY next_eval_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING ${RULE_COLUMNS}`,
    [token, leaseSeconds, limit],
  );
  return r.rows;
}

/** Keeps a claim alive while its queries run; answers the rules still held (a lost one is left to its new owner). */
export async function renewLease(db: Queryable, token: string, leaseSeconds: number): Promise<number> {
  const r = await db.query(
    `UPDATE alert_rules SET lease_until = now() + make_interval(secs => $2) WHERE lease_owner = $1`,
    [token, leaseSeconds],
  );
  return r.rowCount ?? 0;
}

export interface Notification {
  kind: NonNullable<Transition['notify']>;
  payload: AlertPayload;
}

/**
 * Writes an evaluation: the new state, its history row when the state changed, and one outbox row per channel when
 * it notifies and the rule is not silenced, in one transaction that holds only while the claim is still this
 * instance's. A claim lost (the lease ran out and another instance took the rule) writes nothing: false.
 * The outbox rows' event id is the rule's evaluation number, so the same evaluation can never be queued twice.
 *
 * A reminder is due when the rule stays in a notified state (`remindable`, condition.ts reminderOf) and its repeat
 * interval has passed since `last_notified_at` (or, never notified, since the state began), on the database's clock.
 * Every notification moves that clock, a silenced one too: a silence swallows reminders and leaves no backlog behind,
 * so the first reminder after it comes one interval after the last one it swallowed.
 */
export async function commitEvaluation(
  db: Database,
  rule: AlertRuleRow,
  token: string,
  t: Transition,
  error: string | null,
  remindable: boolean,
  notification: (reminder: boolean) => Notification | null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    // The subquery reads the row as it was: SET and RETURNING would see the new clock.
    const updated = await tx.query<{ evaluations: string; silenced: boolean; reminder: boolean }>(
      `UPDATE alert_rules r SET state = $3, state_since = CASE WHEN r.state = $3 THEN r.state_since ELSE now() END,
          pending_since = $4, last_value = $5, last_error = $6, last_evaluated_at = now(),
          last_notified_at = CASE WHEN $7 OR o.reminder THEN now() ELSE r.last_notified_at END,
          evaluations = r.evaluations + 1, next_eval_at = now() + make_interval(mins => r.interval_minutes),
          lease_owner = NULL, lease_until = NULL
        FROM (SELECT id, $8 AND COALESCE(COALESCE(last_notified_at, state_since)
                + make_interval(mins => repeat_minutes) <= now(), false) AS reminder
                FROM alert_rules WHERE id = $1) o
        WHERE r.id = o.id AND r.lease_owner = $2
        RETURNING r.evaluations, COALESCE(r.silenced_until > now(), false) AS silenced, o.reminder`,
      [rule.id, token, t.state, t.pendingSince, t.value, error, t.notify !== null, remindable],
    );
    const row = updated.rows[0];
    if (!row) return false;
    if (t.state !== rule.state)
      await tx.query(
        `INSERT INTO alert_state_history (rule_id, from_state, to_state, value, reason) VALUES ($1, $2, $3, $4, $5)`,
        [rule.id, rule.state, t.state, t.value, row.silenced && t.notify ? `${t.reason} (silenced)` : t.reason],
      );
    const n = (t.notify || row.reminder) && !row.silenced ? notification(row.reminder) : null;
    if (n)
      await tx.query(
        `INSERT INTO notification_deliveries (tenant_id, channel_id, rule_id, event_id, payload)
         SELECT $1, channel_id, $2, $3, $4 FROM alert_rule_channels WHERE rule_id = $2
         ON CONFLICT (event_id, channel_id) DO NOTHING`,
        [rule.tenant_id, rule.id, `msg_alert_${rule.id}_${row.evaluations}`, JSON.stringify(n.payload)],
      );
    return true;
  });
}
