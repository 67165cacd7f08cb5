import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { sitesApi, siteKeys, type ApiSchedule, type ApiScheduleBody, type ApiSite } from './api.ts';
import { FieldError } from './FieldError.tsx';
import { fieldOf, invalidProps } from './field-errors.ts';
import { WEEKDAY_NAMES, when } from './format.ts';
import { browserZone } from '../../app/datetime.ts';

type Kind = 'none' | ApiScheduleBody['kind'];
type Field = 'time' | 'weekday' | 'cron' | 'timeZone';
const FIELDS: Record<Field, RegExp> = {
  time: /\btime\b(?!Zone)/,
  weekday: /weekday/,
  cron: /cron/,
  timeZone: /timeZone/,
};
const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC'];

/** When the site runs by itself: not at all, daily or weekly at a time, or by a cron expression, in a time zone. */
export function SchedulePanel({ site }: { site: ApiSite }) {
  const client = useQueryClient();
  const heading = useId();
  const current = site.schedule;
  const [kind, setKind] = useState<Kind>(current?.kind ?? 'none');
  const [time, setTime] = useState(current?.time ?? '03:00');
  const [weekday, setWeekday] = useState(String(current?.weekday ?? 1));
  const [cron, setCron] = useState(current?.kind === 'cron' ? current.cron : '0 6 * * 1-5');
  const [timeZone, setTimeZone] = useState(current?.timeZone ?? browserZone());
  const [enabled, setEnabled] = useState(current?.enabled ?? true);
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});
  const [saved, setSaved] = useState('');
  const zones = ZONES.includes(timeZone) ? ZONES : [timeZone, ...ZONES];

  const save = useMutation({
    mutationFn: async (): Promise<ApiSchedule | null> => {
      const path = `/sites/${encodeURIComponent(site.id)}/schedule`;
      if (kind === 'none') {
        await sitesApi.call('DELETE', path);
        return null;
      }
      const body: ApiScheduleBody =
        kind === 'cron'
          ? { kind, cron, timeZone, enabled }
          : { kind, time, timeZone, enabled, ...(kind === 'weekly' ? { weekday: Number(weekday) } : {}) };
      return sitesApi.call<ApiSchedule>('PUT', path, { body });
    },
    onSuccess: async (schedule) => {
      setErrors({});
      setSaved(
        schedule
          ? schedule.nextRunAt
            ? `Schedule saved. Next run: ${when(schedule.nextRunAt, schedule.timeZone)}.`
            : 'Schedule saved, paused.'
          : 'No schedule: the site runs when you run it.',
      );
      await client.invalidateQueries({ queryKey: siteKeys.all });
    },
    onError: (err) => {
      setSaved('');
      const { field, message } = fieldOf(err, FIELDS);
      setErrors({ [field]: message });
      if (field !== 'form') requestAnimationFrame(() => document.getElementById(`${heading}-${field}`)?.focus());
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const id = (f: Field) => `${heading}-${f}`;
  return (
    <section aria-labelledby={heading} className="site-panel">
      <h2 id={heading}>Schedule</h2>
      {current?.nextRunAt && <p>Next run: {when(current.nextRunAt, current.timeZone)}.</p>}
      {current?.lastError && <p className="hint">The last slot queued no run: {current.lastError}</p>}
      <form className="form" onSubmit={submit} noValidate>
        <label htmlFor={`${heading}-kind`}>Runs</label>
        <select id={`${heading}-kind`} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="none">Only when run now</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="cron">By a cron expression</option>
        </select>
        {(kind === 'daily' || kind === 'weekly') && (
          <>
            {kind === 'weekly' && (
              <>
                <label htmlFor={id('weekday')}>Day</label>
                <select
                  id={id('weekday')}
                  value={weekday}
                  onChange={(e) => setWeekday(e.target.value)}
                  {...invalidProps(id('weekday'), errors.weekday)}
                >
                  {WEEKDAY_NAMES.map((d, i) => (
                    <option key={d} value={i}>
                      {d}
                    </option>
                  ))}
                </select>
                <FieldError id={id('weekday')} error={errors.weekday} />
              </>
            )}
            <label htmlFor={id('time')}>Time</label>
            <input
              id={id('time')}
              type="time"
              value={time}
              onChange={(e) => setTime(e.target.value)}
              {...invalidProps(id('time'), errors.time)}
            />
            <FieldError id={id('time')} error={errors.time} />
          </>
        )}
        {kind === 'cron' && (
          <>
            <label htmlFor={id('cron')}>Cron expression</label>
            <input
              id={id('cron')}
              autoComplete="off"
              spellCheck={false}
              value={cron}
              onChange={(e) => setCron(e.target.value)}
              {...invalidProps(id('cron'), errors.cron, `${id('cron')}-hint`)}
            />
            <p id={`${id('cron')}-hint`} className="hint">
              Five fields: minute, hour, day of month, month, day of week. At least 15 minutes apart.
            </p>
            <FieldError id={id('cron')} error={errors.cron} />
          </>
        )}
        {kind !== 'none' && (
          <>
            <label htmlFor={id('timeZone')}>Time zone</label>
            <select
              id={id('timeZone')}
              value={timeZone}
              onChange={(e) => setTimeZone(e.target.value)}
              {...invalidProps(id('timeZone'), errors.timeZone)}
            >
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
            <FieldError id={id('timeZone')} error={errors.timeZone} />
            <label className="check">
              <input type="checkbox" checked={!enabled} onChange={(e) => setEnabled(!e.target.checked)} /> Paused
            </label>
          </>
        )}
        {errors.form && (
          <p role="alert" className="error">
            {errors.form}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={save.isPending}>
            Save schedule
          </button>
        </div>
        <p role="status" className="status">
          {saved}
        </p>
      </form>
    </section>
  );
}
