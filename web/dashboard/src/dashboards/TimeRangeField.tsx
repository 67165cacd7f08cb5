import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { absoluteRange, intervalOf, TIME_RANGES } from './parameters.ts';
import { formatDateTime } from '../app/datetime.ts';

/** A `datetime-local` value (the person's time zone) for an instant, to the minute. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/**
 * A time range parameter: a preset ("Last 24 hours") or an absolute range typed as From and To (the person's time
 * zone), which is also what selecting a span on a time chart sets. "Reset zoom" goes back to the last preset used.
 */
export function TimeRangeField({
  id,
  label,
  value,
  initial,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  /** The parameter's own preset, used when no preset was chosen before the absolute range. */
  initial: string;
  onChange: (v: string) => void;
}) {
  const fixed = absoluteRange(value);
  const lastPreset = useRef(fixed ? initial : value);
  if (!fixed) lastPreset.current = value;
  const [from, setFrom] = useState(fixed ? localInput(fixed.from) : '');
  const [to, setTo] = useState(fixed ? localInput(fixed.to) : '');
  const [error, setError] = useState<{ field: 'from' | 'to'; text: string }>();
  useEffect(() => {
    const f = absoluteRange(value);
    setFrom(f ? localInput(f.from) : '');
    setTo(f ? localInput(f.to) : '');
    setError(undefined);
  }, [value]);

  const apply = () => {
    const f = from ? new Date(from).getTime() : Number.NaN;
    const t = to ? new Date(to).getTime() : Number.NaN;
    if (!Number.isFinite(f)) return setError({ field: 'from', text: 'Enter the date and time the range starts.' });
    if (!Number.isFinite(t)) return setError({ field: 'to', text: 'Enter the date and time the range ends.' });
    if (f >= t) return setError({ field: 'to', text: 'To must be later than From.' });
    setError(undefined);
    onChange(intervalOf(f, t));
  };
  const onEnter = (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    // The bar is a form: Enter here applies the range, not the text parameters.
    e.preventDefault();
    apply();
  };
  const preset = TIME_RANGES.find((r) => r.value === lastPreset.current) ?? TIME_RANGES[3]!;
  const bound = (which: 'from' | 'to', text: string, v: string, set: (v: string) => void) => {
    const errorId = `${id}-${which}-error`;
    const wrong = error?.field === which;
    return (
      <div className="field">
        <label htmlFor={`${id}-${which}`}>{text}</label>
        <input
          id={`${id}-${which}`}
          type="datetime-local"
          value={v}
          aria-invalid={wrong || undefined}
          aria-describedby={wrong ? errorId : undefined}
          onChange={(e) => set(e.target.value)}
          onKeyDown={onEnter}
        />
        {wrong && (
          <p id={errorId} className="error field-error" role="alert">
            {error.text}
          </p>
        )}
      </div>
    );
  };
  return (
    <>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select id={id} value={fixed ? 'absolute' : value} onChange={(e) => onChange(e.target.value)}>
          {fixed && (
            <option value="absolute" disabled>
              {formatDateTime(fixed.from)} to {formatDateTime(fixed.to)}
            </option>
          )}
          {TIME_RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="time-range">
        <legend>{label}: from and to</legend>
        {bound('from', 'From', from, setFrom)}
        {bound('to', 'To', to, setTo)}
        <button type="button" className="secondary" onClick={apply}>
          Apply range
        </button>
        {fixed && (
          <button type="button" className="secondary" onClick={() => onChange(preset.value)}>
            Reset zoom ({preset.label.toLowerCase()})
          </button>
        )}
      </fieldset>
    </>
  );
}
