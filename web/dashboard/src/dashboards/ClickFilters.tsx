import { useCallback } from 'react';
import type { ApiDashboardParameter, ApiWidget } from '../api/types.ts';
import { type ClickAction, linkFor } from '../widgets/clickValue.ts';
import { initialValue } from './parameters.ts';

type Values = Record<string, string>;

/**
 * Each widget's click behaviour as the page carries it out: a click sets the parameter it names (the address and the
 * widgets follow the values, as with the parameters bar) and says so through `say`, or opens its link. A choice keeps
 * to its choices: a value it does not offer is said, not set.
 */
export function useClickActions(
  parameters: readonly ApiDashboardParameter[],
  setValues: (f: (v: Values) => Values) => void,
  say: (message: string) => void,
): (w: ApiWidget) => ClickAction | undefined {
  return useCallback(
    (w: ApiWidget) => {
      const click = w.click;
      if (!click) return undefined;
      if (click.link !== undefined) {
        const template = click.link;
        return { kind: 'link', column: click.column, href: (value) => linkFor(template, value) };
      }
      const p = parameters.find((x) => x.name === click.setParameter);
      if (!p || p.type === 'time_range') return undefined;
      const label = p.label ?? p.name;
      return {
        kind: 'filter',
        column: click.column,
        label,
        set: (value) => {
          if (p.type === 'choice' && !(p.choices ?? []).includes(value)) {
            say(`“${value}” is not one of the choices of ${label}: the filter is unchanged.`);
            return;
          }
          setValues((v) => ({ ...v, [p.name]: value }));
          say(`Filtered by ${label}: ${value}.`);
        },
      };
    },
    [parameters, setValues, say],
  );
}

/**
 * The filters clicks set, as chips above the grid: each parameter a widget's click sets, while it holds another value
 * than it starts with, with a button that puts it back (the focus then goes to the parameter's field).
 */
export function ActiveFilters({
  parameters,
  widgets,
  values,
  onClear,
}: {
  parameters: readonly ApiDashboardParameter[];
  widgets: readonly ApiWidget[];
  values: Values;
  onClear: (name: string) => void;
}) {
  const targets = new Set(widgets.flatMap((w) => (w.click?.setParameter ? [w.click.setParameter] : [])));
  const active = parameters.filter(
    (p) => targets.has(p.name) && values[p.name] !== undefined && values[p.name] !== initialValue(p),
  );
  if (active.length === 0) return null;
  return (
    <section className="active-filters" aria-label="Active filters">
      <p>Filtered by</p>
      <ul className="chips">
        {active.map((p) => {
          const label = p.label ?? p.name;
          return (
            <li key={p.name} className="chip">
              <span>
                {label}: <strong>{values[p.name]}</strong>
              </span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Clear filter ${label}: ${values[p.name]}`}
                onClick={() => {
                  onClear(p.name);
                  document.getElementById(`param-${p.name}`)?.focus();
                }}
              >
                ×
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
