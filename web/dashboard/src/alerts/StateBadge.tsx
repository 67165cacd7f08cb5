import type { ApiAlertRule } from '../api/types.ts';
import './alerts.css';

type State = ApiAlertRule['state'];

/** Each state's word and symbol: the badge says the state in text, the colour only repeats it. */
export const STATE_LABEL: Record<State, { text: string; symbol: string }> = {
  ok: { text: 'OK', symbol: '✓' },
  pending: { text: 'Pending', symbol: '…' },
  firing: { text: 'Firing', symbol: '▲' },
  nodata: { text: 'No data', symbol: '?' },
  error: { text: 'Error', symbol: '✕' },
};

export function StateBadge({ state }: { state: State }) {
  const { text, symbol } = STATE_LABEL[state];
  return (
    <span className={`state-badge state-${state}`}>
      <span aria-hidden="true">{symbol}</span>
      {text}
    </span>
  );
}

const OP_TEXT = { above: 'above', below: 'below', outside: 'outside', no_data: 'no data' } as const;

/** A rule's condition in words: "above 10", "outside 1 to 5", "no data". */
export function conditionText(c: ApiAlertRule['condition']): string {
  if (c.op === 'no_data') return 'no data';
  if (c.op === 'outside') return `outside ${c.threshold} to ${c.thresholdHigh}`;
  return `${OP_TEXT[c.op]} ${c.threshold}`;
}

/** "every 5 min", "every 2 h": an interval in minutes in the largest whole unit. */
export function minutesText(m: number): string {
  if (m % 1440 === 0) return `${m / 1440} d`;
  if (m % 60 === 0) return `${m / 60} h`;
  return `${m} min`;
}
