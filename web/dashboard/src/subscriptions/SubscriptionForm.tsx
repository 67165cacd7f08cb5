import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiDashboard, ApiSubscription, ApiSubscriptionBody, ApiUser } from '../api/types.ts';
import { TIME_RANGES, initialValue } from '../dashboards/parameters.ts';
import { atLeast } from '../app/roles.ts';
import { browserZone } from '../app/datetime.ts';
import { messageOf } from '../data/errors.ts';
import { allUsersQuery } from '../data/queries.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const two = (n: number) => String(n).padStart(2, '0');

/** "Every day at 08:00 (Europe/Paris)": the schedule in words, with its time zone always said. */
export function scheduleText(s: ApiSubscription['schedule']): string {
  if (s.frequency === 'hourly') return `Every hour at :${two(s.minute)}`;
  const at = `${two(s.hour)}:${two(s.minute)} (${s.timezone})`;
  return s.frequency === 'daily' ? `Every day at ${at}` : `Every ${DAYS[s.weekday]} at ${at}`;
}

/** A new subscription or a change: schedule, recipients (you, addresses), the dashboard's parameters fixed. */
export function SubscriptionForm({
  me,
  dashboard,
  editing,
  onSaved,
  onCancel,
}: {
  me: ApiUser;
  dashboard: ApiDashboard;
  editing?: ApiSubscription | undefined;
  onSaved: (message: string) => void;
  onCancel: () => void;
}) {
  const [frequency, setFrequency] = useState(editing?.schedule.frequency ?? 'daily');
  const [time, setTime] = useState(editing ? `${two(editing.schedule.hour)}:${two(editing.schedule.minute)}` : '08:00');
  const [weekday, setWeekday] = useState(editing?.schedule.weekday ?? 1);
  const [timezone, setTimezone] = useState(editing?.schedule.timezone ?? browserZone());
  const [toMe, setToMe] = useState(editing ? editing.recipients.userIds.includes(me.id) : true);
  // Admins see the tenant's people and may choose any of them; others choose themselves and type addresses.
  const admin = atLeast(me, 'admin');
  const users = useQuery({ ...allUsersQuery(), enabled: admin });
  const [others, setOthers] = useState<number[]>((editing?.recipients.userIds ?? []).filter((u) => u !== me.id));
  const [addresses, setAddresses] = useState(editing?.recipients.addresses.join(', ') ?? '');
  const parameters = dashboard.definition.parameters ?? [];
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(parameters.map((p) => [p.name, editing?.parameters[p.name] ?? initialValue(p)])),
  );
  const save = useMutation({
    mutationFn: async () => {
      const [hour, minute] = time.split(':').map(Number);
      const body: ApiSubscriptionBody = {
        schedule: { frequency, hour: hour ?? 8, minute: minute ?? 0, weekday, timezone: timezone.trim() },
        recipients: {
          userIds: toMe ? [me.id, ...others] : others,
          addresses: addresses
            .split(/[\s,;]+/)
            .map((a) => a.trim())
            .filter(Boolean),
        },
        parameters: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')),
      };
      if (editing) await api('PUT', `/subscriptions/${editing.id}`, { body });
      else await api('POST', `/dashboards/${dashboard.id}/subscriptions`, { body });
      return editing ? 'Subscription saved.' : 'Subscription added.';
    },
    onSuccess: onSaved,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="form subscription-form" onSubmit={submit} aria-labelledby="sub-form-h">
      <h2 id="sub-form-h">{editing ? 'Edit the subscription' : 'New subscription'}</h2>
      <fieldset className="subscription-group">
        <legend>When</legend>
        <label htmlFor="sub-frequency">Send</label>
        <select
          id="sub-frequency"
          value={frequency}
          onChange={(e) => setFrequency(e.target.value as ApiSubscription['schedule']['frequency'])}
        >
          <option value="hourly">every hour</option>
          <option value="daily">every day</option>
          <option value="weekly">every week</option>
        </select>
        {frequency === 'weekly' && (
          <>
            <label htmlFor="sub-weekday">On</label>
            <select id="sub-weekday" value={weekday} onChange={(e) => setWeekday(Number(e.target.value))}>
              {DAYS.map((d, i) => (
                <option key={d} value={i}>
                  {d}
                </option>
              ))}
            </select>
          </>
        )}
        <label htmlFor="sub-time">{frequency === 'hourly' ? 'At minute (the hour is ignored)' : 'At'}</label>
        <input id="sub-time" type="time" required value={time} onChange={(e) => setTime(e.target.value)} />
        <label htmlFor="sub-zone">Time zone</label>
        <input
          id="sub-zone"
          required
          maxLength={64}
          aria-describedby="sub-zone-hint"
          value={timezone}
          onChange={(e) => setTimezone(e.target.value)}
        />
        <p id="sub-zone-hint" className="hint">
          An IANA name such as Europe/Paris or America/New_York; the time is the clock time there.
        </p>
      </fieldset>
      <fieldset className="subscription-group">
        <legend>To</legend>
        <label className="check">
          <input type="checkbox" checked={toMe} onChange={(e) => setToMe(e.target.checked)} /> Me ({me.email})
        </label>
        {admin &&
          (users.data ?? [])
            .filter((u) => u.active && u.id !== me.id)
            .map((u) => (
              <label className="check" key={u.id}>
                <input
                  type="checkbox"
                  checked={others.includes(u.id)}
                  onChange={(e) =>
                    setOthers((ids) => (e.target.checked ? [...ids, u.id] : ids.filter((x) => x !== u.id)))
                  }
                />{' '}
                {u.name} ({u.email})
              </label>
            ))}
        <label htmlFor="sub-addresses">Other addresses</label>
        <input
          id="sub-addresses"
          aria-describedby="sub-addresses-hint"
          value={addresses}
          onChange={(e) => setAddresses(e.target.value)}
        />
        <p id="sub-addresses-hint" className="hint">
          Separated by commas.
        </p>
      </fieldset>
      {parameters.length > 0 && (
        <fieldset className="subscription-group">
          <legend>Parameters</legend>
          {parameters.map((p) => (
            <div key={p.name} className="subscription-field">
              <label htmlFor={`sub-p-${p.name}`}>{p.label ?? p.name}</label>
              {p.type === 'text' ? (
                <input
                  id={`sub-p-${p.name}`}
                  value={values[p.name] ?? ''}
                  onChange={(e) => setValues({ ...values, [p.name]: e.target.value })}
                />
              ) : (
                <select
                  id={`sub-p-${p.name}`}
                  value={values[p.name] ?? ''}
                  onChange={(e) => setValues({ ...values, [p.name]: e.target.value })}
                >
                  {(p.type === 'choice'
                    ? (p.choices ?? []).map((c) => ({ value: c, label: c }))
                    : TIME_RANGES.map((r) => ({ value: r.value, label: r.label }))
                  ).map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              )}
            </div>
          ))}
        </fieldset>
      )}
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {editing ? 'Save subscription' : 'Add subscription'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
