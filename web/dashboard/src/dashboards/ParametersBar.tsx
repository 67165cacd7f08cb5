import { useEffect, useState, type FormEvent } from 'react';
import { QueryParameter, type OptionsLoader } from './QueryParameter.tsx';
import type { ApiDashboardParameter } from '../api/types.ts';
import { initialValue } from './parameters.ts';
import { TimeRangeField } from './TimeRangeField.tsx';

/**
 * The dashboard's parameters as fields. A choice or a time range preset applies at once (an absolute range with its
 * Apply range button); text applies with Enter or
 * the Apply button, so widgets do not re-run on every keystroke.
 */
export function ParametersBar({
  parameters,
  values,
  onChange,
  options,
}: {
  parameters: readonly ApiDashboardParameter[];
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
  /** Reads a query parameter's choices; without it (a draft, a public link) such a parameter is typed as text. */
  options?: OptionsLoader | undefined;
}) {
  // Without a way to read its choices, a query parameter is a text field.
  const typed = (p: ApiDashboardParameter) => p.type === 'text' || (p.type === 'query' && !options);
  const [text, setText] = useState<Record<string, string>>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: `typed` is remade each render and follows `options`, named here
  useEffect(
    () => setText(Object.fromEntries(parameters.filter(typed).map((p) => [p.name, values[p.name] ?? initialValue(p)]))),
    [parameters, values, options],
  );
  if (parameters.length === 0) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange({ ...values, ...text });
  };
  const hasText = parameters.some(typed);
  return (
    <form className="toolbar parameters" onSubmit={submit} aria-label="Dashboard parameters">
      {parameters.map((p, i) => {
        const id = `param-${p.name}`;
        const label = p.label ?? p.name;
        const value = values[p.name] ?? initialValue(p);
        if (p.type === 'time_range')
          return (
            <TimeRangeField
              key={p.name}
              id={id}
              label={label}
              value={value}
              initial={initialValue(p)}
              onChange={(v) => onChange({ ...values, [p.name]: v })}
            />
          );
        return (
          <div className="field" key={p.name}>
            <label htmlFor={id}>{label}</label>
            {p.type === 'choice' && (
              <select id={id} value={value} onChange={(e) => onChange({ ...values, [p.name]: e.target.value })}>
                {(p.choices ?? []).map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
            {p.type === 'query' && options && (
              <QueryParameter
                id={id}
                parameter={p}
                before={valuesOf(parameters.slice(0, i), values)}
                value={value}
                load={options}
                onChoose={(v) => onChange({ ...values, [p.name]: v })}
              />
            )}
            {typed(p) && (
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

/** The values of these parameters as the page holds them (their defaults until changed). */
const valuesOf = (parameters: readonly ApiDashboardParameter[], values: Record<string, string>) =>
  Object.fromEntries(parameters.map((p) => [p.name, values[p.name] ?? initialValue(p)]));
