/** A rule's states, as Grafana names them: ok (Normal), pending, firing (Alerting), nodata and error. */
export type AlertState = 'ok' | 'pending' | 'firing' | 'nodata' | 'error';
export const ALERT_STATES = ['ok', 'pending', 'firing', 'nodata', 'error'] as const satisfies readonly AlertState[];

export type ConditionOp = 'above' | 'below' | 'outside' | 'no_data';
export const CONDITION_OPS = ['above', 'below', 'outside', 'no_data'] as const satisfies readonly ConditionOp[];

export interface Condition {
  op: ConditionOp;
  threshold: number | null;
  thresholdHigh: number | null;
}

/** What one run of a rule's query gave: a number, nothing (no row, or a null), or an error. */
export type Outcome =
  | { kind: 'value'; value: number; rows: number }
  | { kind: 'nodata'; rows: number }
  | { kind: 'error'; message: string };

/** The notifications a transition sends: the rule fired, went back to ok, or could not be evaluated. */
export type NotificationKind = 'firing' | 'resolved' | 'nodata' | 'error';

export interface Before {
  state: AlertState;
  pendingSince: Date | null;
  pendingMinutes: number;
}

export interface Transition {
  state: AlertState;
  pendingSince: Date | null;
  value: number | null;
  reason: string;
  notify: NotificationKind | null;
}

/** Whether the value breaches the condition: above and below are strict, outside means below low or above high. */
export function breaches(c: Condition, value: number): boolean {
  switch (c.op) {
    case 'above':
      return value > (c.threshold ?? 0);
    case 'below':
      return value < (c.threshold ?? 0);
    case 'outside':
      return value < (c.threshold ?? 0) || value > (c.thresholdHigh ?? 0);
    case 'no_data':
      return false;
  }
}

export function describeCondition(c: Condition): string {
  switch (c.op) {
    case 'above':
      return `above ${c.threshold}`;
    case 'below':
      return `below ${c.threshold}`;
    case 'outside':
      return `outside ${c.threshold} to ${c.thresholdHigh}`;
    case 'no_data':
      return 'no data';
  }
}

/**
 * The next state of a rule from its last one and this evaluation (Grafana's state machine): a breach is pending
 * until it has lasted the pending period, then firing; no data and errors are states of their own that skip the
 * pending period. Only a change notifies: firing, back to ok from firing/nodata/error ("resolved"), nodata, error;
 * pending → ok is silent, as is a first evaluation that is ok. Staying firing, nodata or error may remind
 * (reminderOf), never here.
 */
export function nextState(before: Before, c: Condition, outcome: Outcome, now: Date): Transition {
  const changed = (state: AlertState) => state !== before.state;
  if (outcome.kind === 'error') {
    return {
      state: 'error',
      pendingSince: null,
      value: null,
      reason: `query error: ${outcome.message}`,
      notify: changed('error') ? 'error' : null,
    };
  }
  let breached: boolean;
  let value: number | null;
  let reason: string;
  if (c.op === 'no_data') {
    breached = outcome.kind === 'nodata';
    value = outcome.rows;
    reason = breached ? 'the query returned no data' : `the query returned ${outcome.rows} row(s)`;
  } else if (outcome.kind === 'nodata') {
    return {
      state: 'nodata',
      pendingSince: null,
      value: null,
      reason: 'the query returned no row or a null value',
      notify: changed('nodata') ? 'nodata' : null,
    };
  } else {
    value = outcome.value;
    breached = breaches(c, value);
    reason = `value ${value} is ${breached ? '' : 'not '}${describeCondition(c)}`;
  }
  if (!breached) {
    const wasBad = before.state === 'firing' || before.state === 'nodata' || before.state === 'error';
    return { state: 'ok', pendingSince: null, value, reason, notify: wasBad ? 'resolved' : null };
  }
  if (before.state === 'firing') return { state: 'firing', pendingSince: null, value, reason, notify: null };
  const since = before.state === 'pending' && before.pendingSince ? before.pendingSince : now;
  const lasted = now.getTime() - since.getTime();
  if (lasted >= before.pendingMinutes * 60_000)
    return {
      state: 'firing',
      pendingSince: null,
      value,
      reason: before.pendingMinutes > 0 ? `${reason} for ${before.pendingMinutes} min` : reason,
      notify: 'firing',
    };
  return { state: 'pending', pendingSince: since, value, reason: `${reason}; pending`, notify: null };
}

/**
 * What a reminder of this evaluation would be: the rule stayed in a state that notified when it was entered (firing,
 * nodata, error; Grafana repeats every state it still notifies) and the evaluation notifies nothing of its own. Pending
 * and ok are never reminded of. Whether one is due (the repeat interval since the last notification) is the commit's
 * to say, on the database's clock, which every instance shares (lease.ts).
 */
export function reminderOf(before: AlertState, t: Transition): NotificationKind | null {
  if (t.notify !== null || t.state !== before) return null;
  return t.state === 'firing' || t.state === 'nodata' || t.state === 'error' ? t.state : null;
}
