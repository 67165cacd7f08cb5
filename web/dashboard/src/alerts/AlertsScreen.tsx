import { useQuery } from '@tanstack/react-query';
import type { ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { WideTable } from '../app/WideTable.tsx';
import { messageOf } from '../data/errors.ts';
import { ChannelsPanel } from './ChannelsPanel.tsx';
import { alertRulesQuery } from './queries.ts';
import { StateBadge, conditionText, minutesText } from './StateBadge.tsx';
import { formatDateTime } from '../app/datetime.ts';

/** The tenant's alert rules with their state, firing first; the channels they notify below. */
export default function AlertsScreen({ me }: { me: ApiUser }) {
  useScreen('Alerts');
  const rules = useQuery({ ...alertRulesQuery(), refetchInterval: 30_000 });
  const order = { firing: 0, error: 1, nodata: 2, pending: 3, ok: 4 } as const;
  const sorted = [...(rules.data ?? [])].sort((a, b) => order[a.state] - order[b.state] || a.id - b.id);
  return (
    <>
      <h1>Alerts</h1>
      {rules.error && (
        <p role="alert" className="error">
          {messageOf(rules.error, 'the alert rules could not be loaded')}
        </p>
      )}
      {atLeast(me, 'editor') && (
        <p>
          <Link to="alertNew" className="button">
            New alert rule
          </Link>
        </p>
      )}
      {rules.data && rules.data.length === 0 && (
        <p>
          No alert rules yet. An alert watches a saved query or a dashboard widget and notifies when its value crosses a
          threshold.
        </p>
      )}
      {sorted.length > 0 && (
        <WideTable label="Alert rules">
          <table>
            <caption className="visually-hidden">Alert rules</caption>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">State</th>
                <th scope="col">Condition</th>
                <th scope="col">Checked every</th>
                <th scope="col">Last value</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <Link to="alert" params={{ id: r.id }}>
                      {r.name}
                    </Link>
                  </th>
                  <td>
                    <StateBadge state={r.state} />
                    {!r.enabled && <span className="silenced-note"> paused</span>}
                    {r.silencedUntil && (
                      <span className="silenced-note"> silenced until {formatDateTime(r.silencedUntil)}</span>
                    )}
                  </td>
                  <td>{conditionText(r.condition)}</td>
                  <td>{minutesText(r.intervalMinutes)}</td>
                  <td>{r.lastValue ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <ChannelsPanel me={me} />
    </>
  );
}
