import { EVENT_TYPES } from './types.ts';

type Field = 'type' | 'user' | 'session';

/** The type, user and session filters the live view and the explorer both offer, with ids under `idPrefix`. */
export function EventFilterFields({
  idPrefix,
  values,
  set,
}: {
  idPrefix: string;
  values: Record<Field, string>;
  set: (field: Field) => (e: { target: { value: string } }) => void;
}) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-type`}>Type</label>
        <select id={`${idPrefix}-type`} value={values.type} onChange={set('type')}>
          <option value="">Any type</option>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
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
