import { EVENT_TYPES } from '../types.ts';
import { chooseTypes, describeTypes, type TypeChoice } from './type-choice.ts';

/**
 * The explorer's type filter: several types, shown only or all but them. A group named "Types" whose disclosure says
 * the choice while closed, so it takes one line of the filters until opened; inside, the two ways as radio buttons
 * and a checkbox per type of the contract. Applied with the other filters (Search).
 */
export function TypeFilter({
  idPrefix,
  value,
  onChange,
}: {
  idPrefix: string;
  value: TypeChoice;
  onChange: (choice: TypeChoice) => void;
}) {
  const checked = new Set(value.types);
  const toggle = (type: string) => {
    const next = new Set(checked);
    if (!next.delete(type)) next.add(type);
    onChange(chooseTypes(value.mode, next));
  };
  return (
    <fieldset className="field type-filter">
      <legend>Types</legend>
      <details>
        <summary id={`${idPrefix}-types`}>{describeTypes(value, 3)}</summary>
        <div className="type-filter-panel">
          <fieldset className="type-mode">
            <legend>Show</legend>
            <label>
              <input
                type="radio"
                name={`${idPrefix}-type-mode`}
                checked={value.mode === 'only'}
                onChange={() => onChange({ ...value, mode: 'only' })}
              />{' '}
              Only these types
            </label>
            <label>
              <input
                type="radio"
                name={`${idPrefix}-type-mode`}
                checked={value.mode === 'except'}
                onChange={() => onChange({ ...value, mode: 'except' })}
              />{' '}
              All types but these
            </label>
          </fieldset>
          <ul className="type-list">
            {EVENT_TYPES.map((t) => (
              <li key={t}>
                <label>
                  <input type="checkbox" checked={checked.has(t)} onChange={() => toggle(t)} /> <code>{t}</code>
                </label>
              </li>
            ))}
          </ul>
          <p className="hint">None checked: every type.</p>
        </div>
      </details>
    </fieldset>
  );
}
