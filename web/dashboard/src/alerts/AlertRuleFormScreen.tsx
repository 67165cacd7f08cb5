import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiAlertRule, ApiAlertRuleBody, ApiChannelTest, ApiUser } from '../api/types.ts';
import { navigate } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { dashboardQuery, dashboardsQuery } from '../dashboards/api.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { savedQueriesQuery } from '../data/queries.ts';
import { alertRuleQuery, channelsQuery } from './queries.ts';
import { minutesText } from './StateBadge.tsx';
import './alerts.css';

type Op = ApiAlertRule['condition']['op'];

/** The reminder periods offered; a rule given another through the API keeps its own as one more choice. */
const REPEATS = [
  { minutes: 15, text: 'every 15 minutes' },
  { minutes: 60, text: 'every hour' },
  { minutes: 240, text: 'every 4 hours' },
  { minutes: 1440, text: 'every day' },
];

/** A new alert rule (no id), or one to change (its id): what it watches, its condition, schedule and channels. */
export default function AlertRuleFormScreen({ id }: { me: ApiUser; id?: number }) {
  const existing = useQuery({ ...alertRuleQuery(id ?? 0), enabled: id !== undefined });
  if (id !== undefined && !existing.data)
    return existing.error ? (
      <p role="alert" className="error">
        {messageOf(existing.error, 'the rule could not be loaded')}
      </p>
    ) : (
      <p>Loading the rule…</p>
    );
  return <RuleForm rule={existing.data} />;
}

function RuleForm({ rule }: { rule: ApiAlertRule | undefined }) {
  useScreen(rule ? `Edit ${rule.name}` : 'New alert rule');
  const client = useQueryClient();
  const [name, setName] = useState(rule?.name ?? '');
  const [target, setTarget] = useState<'saved' | 'widget'>(rule?.dashboardId ? 'widget' : 'saved');
  const [savedQueryId, setSavedQueryId] = useState(rule?.savedQueryId ?? 0);
  const [dashboardId, setDashboardId] = useState(rule?.dashboardId ?? 0);
  const [widgetId, setWidgetId] = useState(rule?.widgetId ?? '');
  const [valueColumn, setValueColumn] = useState(rule?.valueColumn ?? '');
  const [params, setParams] = useState(
    Object.entries(rule?.parameters ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(', '),
  );
  const [op, setOp] = useState<Op>(rule?.condition.op ?? 'above');
  const [threshold, setThreshold] = useState(String(rule?.condition.threshold ?? ''));
  const [high, setHigh] = useState(String(rule?.condition.thresholdHigh ?? ''));
  const [interval, setInterval] = useState(rule?.intervalMinutes ?? 5);
  const [pending, setPending] = useState(rule?.pendingMinutes ?? 0);
  const [repeat, setRepeat] = useState<number | null>(rule?.repeatMinutes ?? null);
  const [channelIds, setChannelIds] = useState<number[]>(rule?.channelIds ?? []);
  const [tests, setTests] = useState<string[]>([]);
  const saved = useQuery(savedQueriesQuery());
  const dashboards = useQuery(dashboardsQuery({ page: 1, perPage: 100, search: '', sort: 'title', order: 'asc' }));
  const dashboard = useQuery({ ...dashboardQuery(dashboardId), enabled: target === 'widget' && dashboardId > 0 });
  const widgets = (dashboard.data?.dashboard.definition.widgets ?? []).filter(
    (w) => w.query !== undefined || w.savedQueryId !== undefined,
  );
  const channels = useQuery(channelsQuery());

  const body = (): ApiAlertRuleBody => ({
    name,
    ...(target === 'saved' ? { savedQueryId } : { dashboardId, widgetId }),
    ...(valueColumn.trim() ? { valueColumn: valueColumn.trim() } : {}),
    parameters: parametersOf(params),
    condition: {
      op,
      ...(op !== 'no_data' ? { threshold: Number(threshold) } : {}),
      ...(op === 'outside' ? { thresholdHigh: Number(high) } : {}),
    },
    intervalMinutes: interval,
    pendingMinutes: pending,
    repeatMinutes: repeat,
    channelIds,
  });
  const save = useMutation({
    mutationFn: async () =>
      rule
        ? (await api<ApiAlertRule>('PUT', `/alert-rules/${rule.id}`, { body: body() })).data
        : (await api<ApiAlertRule>('POST', '/alert-rules', { body: body() })).data,
    onSuccess: async (r) => {
      await client.invalidateQueries({ queryKey: keys.alerts.all });
      navigate('alert', { id: r.id });
    },
  });
  const sendTest = useMutation({
    mutationFn: async () => {
      const chosen = (channels.data ?? []).filter((c) => channelIds.includes(c.id));
      if (chosen.length === 0) return ['Choose at least one channel to test.'];
      return Promise.all(
        chosen.map(async (c) => {
          const r = (await api<ApiChannelTest>('POST', `/alert-channels/${c.id}/test`)).data;
          return `${c.name}: ${r.ok ? 'sent' : 'failed'} (${r.detail})`;
        }),
      );
    },
    onMutate: () => setTests([]),
    onSuccess: setTests,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const toggle = (cid: number, on: boolean) =>
    setChannelIds((ids) => (on ? [...ids, cid] : ids.filter((x) => x !== cid)));

  return (
    <>
      <h1>{rule ? `Edit ${rule.name}` : 'New alert rule'}</h1>
      <form className="form alert-form" onSubmit={submit} aria-label={rule ? `Edit ${rule.name}` : 'New alert rule'}>
        <label htmlFor="ar-name">Name</label>
        <input id="ar-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <fieldset className="choices">
          <legend>What it watches</legend>
          <label className="check">
            <input type="radio" name="target" checked={target === 'saved'} onChange={() => setTarget('saved')} /> A
            saved query
          </label>
          <label className="check">
            <input type="radio" name="target" checked={target === 'widget'} onChange={() => setTarget('widget')} /> A
            dashboard widget
          </label>
        </fieldset>
        {target === 'saved' ? (
          <>
            <label htmlFor="ar-query">Saved query</label>
            <select
              id="ar-query"
              required
              value={savedQueryId || ''}
              onChange={(e) => setSavedQueryId(Number(e.target.value))}
            >
              <option value="">Choose a saved query</option>
              {(saved.data ?? []).map((q) => (
                <option key={q.id} value={q.id}>
                  {q.name}
                </option>
              ))}
            </select>
          </>
        ) : (
          <>
            <label htmlFor="ar-dashboard">Dashboard</label>
            <select
              id="ar-dashboard"
              required
              value={dashboardId || ''}
              onChange={(e) => {
                setDashboardId(Number(e.target.value));
                setWidgetId('');
              }}
            >
              <option value="">Choose a dashboard</option>
              {(dashboards.data?.data ?? []).map((d) => (
                <option key={d.id} value={d.id}>
                  {d.title}
                </option>
              ))}
            </select>
            <label htmlFor="ar-widget">Widget</label>
            <select id="ar-widget" required value={widgetId} onChange={(e) => setWidgetId(e.target.value)}>
              <option value="">Choose a widget</option>
              {widgets.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.title ?? w.id}
                </option>
              ))}
            </select>
          </>
        )}
        <label htmlFor="ar-column">Value column (optional)</label>
        <input
          id="ar-column"
          maxLength={200}
          aria-describedby="ar-column-hint"
          value={valueColumn}
          onChange={(e) => setValueColumn(e.target.value)}
        />
        <p id="ar-column-hint" className="hint">
          The first row's value in this column is checked; empty: the first numeric column.
        </p>
        <label htmlFor="ar-params">Parameter values (optional)</label>
        <input
          id="ar-params"
          maxLength={2000}
          aria-describedby="ar-params-hint"
          value={params}
          onChange={(e) => setParams(e.target.value)}
        />
        <p id="ar-params-hint" className="hint">
          name=value pairs separated by commas, for the query's parameters (a widget's others keep the dashboard's
          defaults).
        </p>
        <label htmlFor="ar-op">Fires when the value is</label>
        <select id="ar-op" value={op} onChange={(e) => setOp(e.target.value as Op)}>
          <option value="above">above a threshold</option>
          <option value="below">below a threshold</option>
          <option value="outside">outside a range</option>
          <option value="no_data">missing (the query returns no row)</option>
        </select>
        {op !== 'no_data' && (
          <>
            <label htmlFor="ar-threshold">{op === 'outside' ? 'Lowest good value' : 'Threshold'}</label>
            <input
              id="ar-threshold"
              type="number"
              step="any"
              required
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
            />
          </>
        )}
        {op === 'outside' && (
          <>
            <label htmlFor="ar-high">Highest good value</label>
            <input
              id="ar-high"
              type="number"
              step="any"
              required
              value={high}
              onChange={(e) => setHigh(e.target.value)}
            />
          </>
        )}
        <label htmlFor="ar-interval">Check every (minutes)</label>
        <input
          id="ar-interval"
          type="number"
          min={1}
          max={10080}
          required
          value={interval}
          onChange={(e) => setInterval(Number(e.target.value))}
        />
        <label htmlFor="ar-pending">Pending period (minutes)</label>
        <input
          id="ar-pending"
          type="number"
          min={0}
          max={10080}
          required
          aria-describedby="ar-pending-hint"
          value={pending}
          onChange={(e) => setPending(Number(e.target.value))}
        />
        <p id="ar-pending-hint" className="hint">
          How long the condition must hold before the rule fires; 0 fires at the first breach. No data and query errors
          are notified at once.
        </p>
        <label htmlFor="ar-repeat">Remind while firing</label>
        <select
          id="ar-repeat"
          aria-describedby="ar-repeat-hint"
          value={repeat ?? ''}
          onChange={(e) => setRepeat(e.target.value === '' ? null : Number(e.target.value))}
        >
          <option value="">Never: notify on changes only</option>
          {repeat !== null && !REPEATS.some((r) => r.minutes === repeat) && (
            <option value={repeat}>every {minutesText(repeat)}</option>
          )}
          {REPEATS.map((r) => (
            <option key={r.minutes} value={r.minutes}>
              {r.text}
            </option>
          ))}
        </select>
        <p id="ar-repeat-hint" className="hint">
          While the rule stays firing, without data or in error, its channels are notified again this often, at its next
          check (so never more often than it is checked). A silence holds reminders back too.
        </p>
        <fieldset className="choices">
          <legend>Notify</legend>
          {(channels.data ?? []).length === 0 && <p>No channels yet: an admin adds them on the Alerts screen.</p>}
          {(channels.data ?? []).map((c) => (
            <label className="check" key={c.id}>
              <input
                type="checkbox"
                id={`ar-channel-${c.id}`}
                checked={channelIds.includes(c.id)}
                onChange={(e) => toggle(c.id, e.target.checked)}
              />{' '}
              {c.name}
            </label>
          ))}
        </fieldset>
        <div role="status" className="status">
          {tests.length > 0 && (
            <ul className="test-results">
              {tests.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
          )}
        </div>
        {(save.error || sendTest.error) && (
          <p role="alert" className="error">
            {messageOf(save.error ?? sendTest.error)}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={save.isPending}>
            {rule ? 'Save rule' : 'Create rule'}
          </button>
          <button type="button" className="secondary" disabled={sendTest.isPending} onClick={() => sendTest.mutate()}>
            Send test notification
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => (rule ? navigate('alert', { id: rule.id }) : navigate('alerts'))}
          >
            Cancel
          </button>
        </div>
      </form>
    </>
  );
}

/** `a=1, b=text` as values by name: a number where the text is one. */
function parametersOf(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const pair of text.split(/[,\n]/)) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    const value = pair.slice(i + 1).trim();
    out[pair.slice(0, i).trim()] = value !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return out;
}
