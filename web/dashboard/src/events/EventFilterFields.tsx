import type { ReactElement } from 'react';
import { EVENT_TYPES } from './types.ts';

type Handler = (e: { target: { value: string } }) => void;
/** One type from the select, or the screen's own field for it. */
type TypeProps =
  | {
      typeField?: undefined;
      values: { type: string; user: string; session: string };
      set: (field: 'type' | 'user' | 'session') => Handler;
    }
  | { typeField: ReactElement; values: { user: string; session: string }; set: (field: 'user' | 'session') => Handler };

/**
 * The type, user and session filters the live view and the explorer both offer, with ids under `idPrefix`: one type
 * from a select, unless the screen gives its own `typeField` (the explorer's several types, explorer/TypeFilter.tsx).
 */
export function EventFilterFields(props: { idPrefix: string } & TypeProps) {
  const { idPrefix, values, set } = props;
  return (
    <>
      {props.typeField !== undefined ? (
        props.typeField
      ) : (
        <div className="field">
          <label htmlFor={`${idPrefix}-type`}>Type</label>
          <select id={`${idPrefix}-type`} value={props.values.type} onChange={props.set('type')}>
            <option value="">Any type</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={`${idPrefix}-user`}>User id</label>
        <input id={`${idPrefix}-user`} maxLength={256} autoComplete="off" value={values.user} onChange={set('user')} />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-session`}>Session id</label>
        <input
          id={`${idPrefix}-session`}
          maxLength={256}
          autoComplete="off"
          value={values.session}
          onChange={set('session')}
        />
      </div>
    </>
  );
}
