import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import '../../app/console-screens.css';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import { ACTION_HINTS, TARGET_TYPES, type ApiAdminChange } from './api.ts';
import { formatInstant } from '../../app/datetime.ts';

interface Filters {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  text: string;
  since: string;
  until: string;
}
const EMPTY: Filters = { actor: '', action: '', targetType: '', targetId: '', text: '', since: '', until: '' };

/** To the second: several changes often share a minute. */

/** `datetime-local` values are the person's local time; the API takes ISO 8601 with a zone. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

const valueText = (v: unknown): string => {
  if (v === undefined || v === null) return 'none';
  if (Array.isArray(v)) return v.length ? v.map(valueText).join(', ') : '(none)';
  return typeof v === 'string' ? v : JSON.stringify(v);
};

/** The change as lines of `field: value`, or `field: before → after` where the change kept the value before. */
function changeLines(c: ApiAdminChange): [field: string, line: string][] {
  const before = c.before && typeof c.before === 'object' ? (c.before as Record<string, unknown>) : undefined;
  const after = c.after && typeof c.after === 'object' ? (c.after as Record<string, unknown>) : {};
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after)])];
  return fields.map((k) => [
    k,
    before ? `${k}: ${valueText(before[k])} → ${valueText(after[k])}` : `${k}: ${valueText(after[k])}`,
  ]);
}

function Actor({ c }: { c: ApiAdminChange }) {
  if (c.actor.kind === 'admin-token') return <>the admin token</>;
  if (c.actor.kind === 'platform') return <>the platform (first run)</>;
  if (c.actor.kind === 'command') return <>a command on the server</>;
  if (c.actor.kind === 'scim') return <>SCIM: {c.actor.name ?? c.actor.id}</>;
  if (c.actor.kind === 'anonymous')
    return <>someone not signed in{c.client_ip && <span className="hint block">from {c.client_ip}</span>}</>;
  return (
    <>
      {c.actor.name ?? c.actor.id}
      {c.actor.email && c.actor.email !== c.actor.name && <span className="hint block">{c.actor.email}</span>}
    </>
  );
}

function Target({ c }: { c: ApiAdminChange }) {
  const kind = TARGET_TYPES[c.target.type] ?? c.target.type;
  if (c.target.type === 'organization' && c.target.name)
    return (
      <>
        {kind}{' '}
        <Link to="organization" params={{ id: c.target.id }}>
          {c.target.name}
        </Link>
      </>
    );
  return (
    <>
      {kind} {c.target.name ? `“${c.target.name}”` : ''}
      <span className="hint block">
        <code>{c.target.id}</code>
      </span>
    </>
  );
}

/**
 * Every administrative change at identity (who, what, on what, when), newest first, 25 a page: searched by actor,
 * action (or its beginning), target, text in what was recorded, and time.
 */
export default function ChangeLogScreen() {
  useScreen('Change log');
  const [form, setForm] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [problem, setProblem] = useState('');
  const pages = useCursorPages<ApiAdminChange>(
    keys.adminLog,
    '/admin-log',
    {
      actor: applied.actor.trim() || undefined,
      action: applied.action.trim().toLowerCase() || undefined,
      target_type: applied.targetType || undefined,
      target_id: applied.targetId.trim() || undefined,
      q: applied.text.trim() || undefined,
      since: iso(applied.since),
      until: iso(applied.until),
    },
    25,
    identityApi.get,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form.since && form.until && form.since >= form.until) {
      setProblem('“From” must be earlier than “Until”.');
      return;
    }
    setProblem('');
    setApplied(form);
  };
  const set = (k: keyof Filters) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const count = pages.items?.length ?? 0;

  return (
    <>
      <h1>Change log</h1>
      <p className="description">
        Every change made through identity's management API and marketplace, and every change of console rights.
      </p>
      <search aria-label="Change log">
        <form className="filters-bar" onSubmit={submit}>
          <div className="field">
            <label htmlFor="log-actor">Who</label>
            <input
              id="log-actor"
              maxLength={320}
              autoComplete="off"
              aria-describedby="log-actor-hint"
              value={form.actor}
              onChange={set('actor')}
            />
            <span id="log-actor-hint" className="hint">
              Part of a name or email, admin-token or scim
            </span>
          </div>
          <div className="field">
            <label htmlFor="log-action">Action</label>
            <input
              id="log-action"
              maxLength={100}
              list="log-actions"
              autoComplete="off"
              aria-describedby="log-action-hint"
              value={form.action}
              onChange={set('action')}
            />
            <datalist id="log-actions">
              {ACTION_HINTS.map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
            <span id="log-action-hint" className="hint">
              An action or its beginning, as organization.member
            </span>
          </div>
          <div className="field">
            <label htmlFor="log-target-type">Target</label>
            <select id="log-target-type" value={form.targetType} onChange={set('targetType')}>
              <option value="">Anything</option>
              {Object.entries(TARGET_TYPES).map(([t, label]) => (
                <option key={t} value={t}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="log-target-id">Target id</label>
            <input
              id="log-target-id"
              maxLength={200}
              autoComplete="off"
              value={form.targetId}
              onChange={set('targetId')}
            />
          </div>
          <div className="field">
            <label htmlFor="log-text">Text in the change</label>
            <input id="log-text" maxLength={200} autoComplete="off" value={form.text} onChange={set('text')} />
          </div>
          <div className="field">
            <label htmlFor="log-since">From</label>
            <input id="log-since" type="datetime-local" value={form.since} onChange={set('since')} />
          </div>
          <div className="field">
            <label htmlFor="log-until">Until</label>
            <input id="log-until" type="datetime-local" value={form.until} onChange={set('until')} />
          </div>
          <div className="actions">
            <button type="submit">Search</button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setForm(EMPTY);
                setApplied(EMPTY);
                setProblem('');
              }}
            >
              Clear
            </button>
          </div>
        </form>
      </search>
      {(problem || pages.error) && (
        <p role="alert" className="error">
          {problem || messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      <p role="status" className="status">
        {pages.items
          ? count === 0
            ? 'No change matches.'
            : `Page ${pages.page}: ${count} change${count === 1 ? '' : 's'}${pages.hasNext ? ', more on the next page' : ''}.`
          : ''}
      </p>
      {pages.items && count > 0 && (
        <WideTable label="Changes">
          <table>
            <caption>Changes at identity, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <time dateTime={c.at}>{formatInstant(c.at)}</time>
                  </th>
                  <td>
                    <Actor c={c} />
                  </td>
                  <td>
                    <code>{c.action}</code>
                  </td>
                  <td>
                    <Target c={c} />
                  </td>
                  <td className="prose">
                    {changeLines(c).length === 0 ? (
                      'nothing more'
                    ) : (
                      <ul className="plain">
                        {changeLines(c).map(([field, line]) => (
                          <li key={field}>{line}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Change log" />
    </>
  );
}
