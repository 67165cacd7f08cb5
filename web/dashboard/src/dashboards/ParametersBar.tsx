import { useEffect, useState, type FormEvent } from 'react';
import type { ApiDashboardParameter } from '../api/types.ts';
import { initialValue, TIME_RANGES } from './parameters.ts';

/**
 * The dashboard's parameters as fields. A choice or a time range applies at once; text applies with Enter or
 * the Apply button, so widgets do not re-run on every keystroke.
 */
export function ParametersBar({
  parameters,
  values,
  onChange,
}: {
  parameters: readonly ApiDashboardParameter[];
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
}) {
  const [text, setText] = useState<Record<string, string>>({});
  useEffect(
    () =>
      setText(
        Object.fromEntries(
          parameters.filter((p) => p.type === 'text').map((p) => [p.name, values[p.name] ?? initialValue(p)]),
        ),
      ),
    [parameters, values],
  );
  if (parameters.length === 0) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange({ ...values, ...text });
  };
  const hasText = parameters.some((p) => p.type === 'text');
  return (
    <form className="toolbar parameters" onSubmit={submit} aria-label="Dashboard parameters">
      {parameters.map((p) => {
        const id = `param-${p.name}`;
        const label = p.label ?? p.name;
        const value = values[p.name] ?? initialValue(p);
        return (
          <div className="field" key={p.name}>
            <label htmlFor={id}>{label}</label>
            {p.type === 'time_range' && (
              <select id={id} value={value} onChange={(e) => onChange({ ...values, [p.name]: e.target.value })}>
                {TIME_RANGES.map((r) => (
                  <option key={r.value} value={r.value}>
                    {r.label}
                  </option>
                ))}
              </select>
            )}
            {p.type === 'choice' && (
              <select id={id} value={value} onChange={(e) => onChange({ ...values, [p.name]: e.target.value })}>
                {(p.choices ?? []).map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
            {p.type === 'text' && (
              <input
                id={id}
                value={text[p.name] ?? ''}
                maxLength={1000}
                onChange={(e) => setText({ ...text, [p.name]: e.target.value })}
              />
            )}
          </div>
        );
      })}
      {hasText && (
        <button type="submit" className="secondary">
          Apply
        </button>
      )}
    </form>
  );
}
