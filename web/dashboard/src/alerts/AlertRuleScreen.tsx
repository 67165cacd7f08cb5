import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { ApiAlertRule, ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { Link, navigate } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { WideTable } from '../app/WideTable.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { savedQueriesQuery } from '../data/queries.ts';
import { alertDeliveriesQuery, alertHistoryQuery, alertRuleQuery, channelsQuery } from './queries.ts';
import { StateBadge, STATE_LABEL, conditionText, minutesText } from './StateBadge.tsx';
import { formatDateTime, formatInstant, whenOrNever } from '../app/datetime.ts';
import { useConfirm } from '../app/useConfirm.tsx';

const SILENCES = [
  { minutes: 15, text: '15 minutes' },
  { minutes: 60, text: '1 hour' },
  { minutes: 240, text: '4 hours' },
  { minutes: 1440, text: '1 day' },
  { minutes: 10080, text: '1 week' },
];

/** When a rule that stays in a notified state is next reminded of, at the earliest (the service's clock: repeatMinutes). */
function nextReminder(rule: ApiAlertRule): Date | null {
  const reminded = rule.state === 'firing' || rule.state === 'nodata' || rule.state === 'error';
  if (!reminded || rule.repeatMinutes === null || rule.lastNotifiedAt === null) return null;
  return new Date(Date.parse(rule.lastNotifiedAt) + rule.repeatMinutes * 60_000);
}

/** One rule: its state and condition, silence for a while, its state history and its notifications' delivery. */
export default function AlertRuleScreen({ me, id }: { me: ApiUser; id: number }) {
  const rule = useQuery({ ...alertRuleQuery(id), refetchInterval: 30_000 });
  useScreen(rule.data?.name ?? 'Alert rule');
  if (!rule.data)
    return rule.error ? (
      <>
        <p className="crumbs">
          <Link to="alerts">All alert rules</Link>
        </p>
        <h1>Alert rule</h1>
        <p role="alert" className="error">
          {messageOf(rule.error, 'the rule could not be loaded')}
        </p>
      </>
    ) : (
      <p>Loading the rule…</p>
    );
  return <RuleDetail me={me} rule={rule.data} />;
}

function RuleDetail({ me, rule }: { me: ApiUser; rule: ApiAlertRule }) {
  const client = useQueryClient();
  const history = useQuery(alertHistoryQuery(rule.id));
  const deliveries = useQuery(alertDeliveriesQuery(rule.id));
  const channels = useQuery(channelsQuery());
  const saved = useQuery(savedQueriesQuery());
  const [minutes, setMinutes] = useState(60);
  const [message, setMessage] = useState('');
  const channelName = (cid: number) => channels.data?.find((c) => c.id === cid)?.name ?? `channel ${cid}`;
  const action = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => setMessage(''),
    onSuccess: async (said) => {
      await client.invalidateQueries({ queryKey: keys.alerts.all });
      setMessage(said);
    },
  });
  const silence = () =>
    action.mutate(async () => {
      const r = (await api<ApiAlertRule>('PUT', `/alert-rules/${rule.id}/silence`, { body: { minutes } })).data;
      return `Silenced until ${formatDateTime(r.silencedUntil ?? '')}.`;
    });
  const unsilence = () =>
    action.mutate(async () => {
      await api('DELETE', `/alert-rules/${rule.id}/silence`);
      return 'The silence is lifted.';
    });
  const [confirmFirst, confirming] = useConfirm();
  const watched =
    rule.dashboardId !== null
      ? 'the dashboard it watches stays'
      : `the saved query ${saved.data?.find((q) => q.id === rule.savedQueryId)?.name ?? rule.savedQueryId} stays`;
  const remove = async () => {
    const yes = await confirmFirst({
      title: `Delete the alert rule ${rule.name}?`,
      body: `Its state history and its record of notifications sent go with it, and it notifies no one again; ${watched}, and so do its channels.`,
      confirm: 'Delete rule',
    });
    if (!yes) return;
    action.mutate(async () => {
      await api('DELETE', `/alert-rules/${rule.id}`);
      // Out of the list before it is shown, rather than there until the list is read again.
      client.setQueryData(keys.alerts.list(), (rules: ApiAlertRule[] | undefined) =>
        rules?.filter((r) => r.id !== rule.id),
      );
      navigate('alerts');
      return '';
    });
  };
  const editor = atLeast(me, 'editor');
  const next = nextReminder(rule);
  return (
    <>
      <p className="crumbs">
        <Link to="alerts">All alert rules</Link>
      </p>
      <h1>{rule.name}</h1>
      <p role="status" className="status">
        {message}
      </p>
      {action.error && (
        <p role="alert" className="error">
          {messageOf(action.error)}
        </p>
      )}
      <dl className="alert-facts">
        <dt>State</dt>
        <dd>
          <StateBadge state={rule.state} /> since {formatDateTime(rule.stateSince)}
          {!rule.enabled && ' (paused)'}
        </dd>
        <dt>Watches</dt>
        <dd>
          {rule.dashboardId !== null ? (
            <>
              widget {rule.widgetId} of{' '}
              <Link to="dashboard" params={{ id: rule.dashboardId }}>
                its dashboard
              </Link>
            </>
          ) : (
            `the saved query ${saved.data?.find((q) => q.id === rule.savedQueryId)?.name ?? rule.savedQueryId}`
          )}
          {rule.valueColumn ? `, column ${rule.valueColumn}` : ''}
        </dd>
        <dt>Fires when</dt>
        <dd>
          the value is {conditionText(rule.condition)}
          {rule.pendingMinutes > 0 ? ` for ${minutesText(rule.pendingMinutes)}` : ''}
        </dd>
        <dt>Checked</dt>
        <dd>
          every {minutesText(rule.intervalMinutes)}; last {whenOrNever(rule.lastEvaluatedAt)}, next{' '}
          {formatDateTime(rule.nextEvaluationAt)}
        </dd>
        <dt>Reminds</dt>
        <dd>
          {rule.repeatMinutes === null
            ? 'never: notifies on changes only'
            : `every ${minutesText(rule.repeatMinutes)} while firing, without data or in error`}
          {next ? `; the next at the first check from ${formatDateTime(next)}` : ''}
        </dd>
        <dt>Last value</dt>
        <dd>{rule.lastValue ?? '—'}</dd>
        {rule.lastError && (
          <>
            <dt>Last error</dt>
            <dd>{rule.lastError}</dd>
          </>
        )}
        <dt>Notifies</dt>
        <dd>{rule.channelIds.length ? rule.channelIds.map(channelName).join(', ') : 'nobody'}</dd>
        <dt>Silenced</dt>
        <dd>{rule.silencedUntil ? `until ${formatDateTime(rule.silencedUntil)}` : 'no'}</dd>
      </dl>
      {editor && (
        <div className="actions alert-section">
          <Link to="alertEdit" params={{ id: rule.id }} className="button">
            Edit rule
          </Link>
          <button type="button" className="danger" onClick={remove}>
            Delete rule
          </button>
        </div>
      )}
      {editor && (
        <section className="alert-section" aria-labelledby="silence-h">
          <h2 id="silence-h">Silence</h2>
          <p className="hint">A silenced rule is still checked and its history kept; it sends no notification.</p>
          <div className="actions">
            <label htmlFor="silence-for">Silence for</label>
            <select id="silence-for" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
              {SILENCES.map((s) => (
                <option key={s.minutes} value={s.minutes}>
                  {s.text}
                </option>
              ))}
            </select>
            <button type="button" onClick={silence}>
              Silence
            </button>
            {rule.silencedUntil && (
              <button type="button" className="secondary" onClick={unsilence}>
                Lift the silence
              </button>
            )}
          </div>
        </section>
      )}
      <h2 id="history-h">State history</h2>
      {history.data && history.data.length === 0 && <p>No change of state yet.</p>}
      {history.data && history.data.length > 0 && (
        <WideTable label="State history">
          <table aria-labelledby="history-h">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Value</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {history.data.map((h) => (
                <tr key={h.id}>
                  <td>{formatInstant(h.at)}</td>
                  <td>{STATE_LABEL[h.from].text}</td>
                  <td>
                    <StateBadge state={h.to} />
                  </td>
                  <td>{h.value ?? '—'}</td>
                  <td>{h.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <h2 id="deliveries-h">Notifications</h2>
      {deliveries.data && deliveries.data.length === 0 && <p>None sent yet.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <WideTable label="Notifications">
          <table aria-labelledby="deliveries-h">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Channel</th>
                <th scope="col">Delivery</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.map((d) => (
                <tr key={d.id}>
                  <td>{formatInstant(d.createdAt)}</td>
                  <td>
                    {d.type.replace(/^alert\./, '')}
                    {d.reminder ? ' (reminder)' : ''}
                  </td>
                  <td>{channelName(d.channelId)}</td>
                  <td>
                    {d.status}
                    {d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}
                    {d.lastError ? `: ${d.lastError}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {confirming}
    </>
  );
}
