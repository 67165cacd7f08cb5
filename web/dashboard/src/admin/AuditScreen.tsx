import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiAuditRecord, ApiUser } from '../api/types.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { useCursorPages } from '../data/paging.ts';
import { allUsersQuery } from '../data/queries.ts';
import { instantOrNever } from '../app/datetime.ts';
import { Pager } from './Pager.tsx';
import { WideTable } from '../app/WideTable.tsx';
// The service's own list, which its audit records are typed by: a new action is offered here without a second list.
import { AUDIT_ACTIONS } from '../../../../src/dashboard/audit/actions.ts';

interface Filters {
  userId: string;
  action: string;
  since: string;
  until: string;
}
const EMPTY: Filters = { userId: '', action: '', since: '', until: '' };
const NOBODY: ApiUser[] = [];

/** `datetime-local` values are the person's local time; the API takes ISO 8601 with a zone. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

const KINDS: Record<string, string> = {
  dashboard: 'Dashboard',
  datasource: 'Data source',
  user: 'User',
  tenant: 'Tenant',
};

/** "Dashboard “Sales”", with "(deleted)" when the record's name is all that is left of it. */
function target(r: ApiAuditRecord): string {
  const kind = KINDS[r.targetType] ?? r.targetType;
  if (r.targetName) return `${kind} “${r.targetName}”${r.targetExists ? '' : ' (deleted)'}`;
  return r.targetId ? `${kind} ${r.targetId}${r.targetExists ? '' : ' (deleted)'}` : kind;
}

function details(d: Record<string, unknown>): string {
  const text = Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** The tenant's audit log as a table, newest first, filtered by who, what and when, a page of 25 at a time. */
export default function AuditScreen() {
  useScreen('Audit log');
  // Every user of the tenant, every page, to offer each as "Who" (a record names its actor itself).
  const users = useQuery(allUsersQuery());
  const [form, setForm] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [problem, setProblem] = useState('');
  const pages = useCursorPages<ApiAuditRecord>(keys.audit, '/audit', {
    userId: applied.userId || undefined,
    action: applied.action || undefined,
    since: iso(applied.since),
    until: iso(applied.until),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form.since && form.until && form.since >= form.until) {
      setProblem('"From" must be earlier than "To".');
      return;
    }
    setProblem('');
    setApplied(form);
  };
  const set = (k: keyof Filters) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const actor = (r: ApiAuditRecord) => (r.userId === null ? 'operator or system' : (r.userName ?? `user ${r.userId}`));
  const count = pages.items?.length ?? 0;

  return (
    <>
      <h1>Audit log</h1>
      <form className="filters" onSubmit={submit} aria-label="Filter the audit log">
        <div className="field">
          <label htmlFor="audit-actor">Who</label>
          <select id="audit-actor" value={form.userId} onChange={set('userId')}>
            <option value="">Anyone</option>
            {(users.data ?? NOBODY).map((u: ApiUser) => (
              <option key={u.id} value={String(u.id)}>
                {u.name} ({u.email})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" value={form.action} onChange={set('action')}>
            <option value="">Any action</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-since">From</label>
          <input id="audit-since" type="datetime-local" value={form.since} onChange={set('since')} />
        </div>
        <div className="field">
          <label htmlFor="audit-until">To</label>
          <input id="audit-until" type="datetime-local" value={form.until} onChange={set('until')} />
        </div>
        <div className="actions field-end">
          <button type="submit">Apply filters</button>
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
      {(problem || pages.error || users.error) && (
        <p role="alert" className="error">
          {problem ||
            (pages.error
              ? messageOf(pages.error, 'the list could not be loaded')
              : `The people to filter by could not be loaded: ${messageOf(users.error)}`)}
        </p>
      )}
      <p role="status" className="status">
        {pages.items
          ? count === 0
            ? 'No records match.'
            : `Page ${pages.page}: ${count} record${count === 1 ? '' : 's'}${pages.hasNext ? ', more on the next page' : ''}.`
          : ''}
      </p>
      {pages.items && count > 0 && (
        <WideTable label="Audit records" tall>
          <table>
            <caption className="visually-hidden">Audit records, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <time dateTime={r.createdAt}>{instantOrNever(r.createdAt)}</time>
                  </td>
                  <td>{actor(r)}</td>
                  <td>{r.action}</td>
                  <td>{target(r)}</td>
                  <td className="prose">{details(r.details)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Audit log" />
    </>
  );
}
