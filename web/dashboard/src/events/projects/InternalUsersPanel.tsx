import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { messageOf } from '../../data/errors.ts';
import { ingestApi, ingestKeys, seg, type ApiProject, type ApiProjectInternalUsers } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * The project's internal and test users, whose events the explorer hides on "Hide internal and test users": shown as
 * text, edited one field per entry as OriginsPanel does; the service checks each and a refusal is said next to its
 * field. A save also drops the explorer's cached reads, so its next counts leave out whom the list now names.
 */
export function InternalUsersPanel({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const key = [...ingestKeys.project(project.id), 'internal-users'];
  const users = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      ingestApi.get<ApiProjectInternalUsers>(`/projects/${seg(project.id)}/internal-users`, signal),
  });
  const [draft, setDraft] = useState<string[]>();
  const [said, setSaid] = useState('');
  const [focusAt, setFocusAt] = useState<string>();
  useEffect(() => {
    if (!focusAt) return;
    document.getElementById(focusAt)?.focus();
    setFocusAt(undefined);
  }, [focusAt]);
  // Blank fields are left out; the service names entries by the index sent.
  const sent = (draft ?? []).map((u, i) => ({ u: u.trim(), i })).filter((x) => x.u !== '');
  const save = useMutation({
    mutationFn: () =>
      ingestApi.call<ApiProjectInternalUsers>('PUT', `/projects/${seg(project.id)}/internal-users`, {
        body: { users: sent.map((x) => x.u) },
      }),
    onSuccess: (u) => {
      client.setQueryData(key, u);
      void client.invalidateQueries({ queryKey: ['events', 'read', project.id] });
      setDraft(undefined);
      setFocusAt('internal-users-edit');
      setSaid(
        u.users.length === 0
          ? 'No user is marked internal or test.'
          : `${u.users.length} entr${u.users.length === 1 ? 'y' : 'ies'} marked internal or test.`,
      );
    },
  });
  const raw = fieldErrors(save.error, ['users', ...sent.map((_, n) => `users[${n}]`)], UNREACHABLE) as Record<
    string,
    string | undefined
  >;
  const errorAt = (i: number) => {
    const n = sent.findIndex((x) => x.i === i);
    return n < 0 ? undefined : raw[`users[${n}]`];
  };
  const problem = raw.other ?? raw.users;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const u = users.data;
  return (
    <section className="screen-section" aria-labelledby="project-internal-users">
      <h2 id="project-internal-users">Internal and test users</h2>
      <p className="hint" id="internal-users-help">
        The team’s own and test accounts, by the <code>user.id</code> their events carry. The explorer leaves their
        events out of its counts and list when “Hide internal and test users” is ticked. An entry ending in{' '}
        <code>*</code> is a prefix: <code>test-*</code> is every id starting with <code>test-</code>. Ids are compared
        exactly, capitals included. At most 100 entries.
      </p>
      {users.error !== null && (
        <p role="alert" className="error">
          {messageOf(users.error, UNREACHABLE)}
        </p>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {u && !draft && (
        <>
          {u.users.length === 0 ? (
            <p>No user is marked internal or test.</p>
          ) : (
            <ul className="origins">
              {u.users.map((x) => (
                <li key={x}>
                  <code>{x}</code>
                  {x.endsWith('*') && <span className="hint"> (every id starting with {x.slice(0, -1)})</span>}
                </li>
              ))}
            </ul>
          )}
          <div className="actions">
            <button
              type="button"
              id="internal-users-edit"
              className="secondary"
              onClick={() => {
                save.reset();
                setSaid('');
                setDraft(u.users.length ? [...u.users] : ['']);
                setFocusAt('internal-user-0');
              }}
            >
              Edit internal and test users
            </button>
          </div>
        </>
      )}
      {draft && (
        <form className="form inline-form" onSubmit={submit} aria-label="Internal and test users">
          {draft.map((value, i) => {
            const id = `internal-user-${i}`;
            const error = errorAt(i);
            return (
              <div key={i} className="origin-row">
                <label htmlFor={id}>User id or prefix {i + 1}</label>
                <div className="origin-field">
                  <input
                    id={id}
                    maxLength={256}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="ann@example.com or test-*"
                    value={value}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error internal-users-help` : 'internal-users-help'}
                    onChange={(e) => setDraft(draft.map((d, j) => (j === i ? e.target.value : d)))}
                  />
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove user id or prefix ${i + 1}`}
                    onClick={() => {
                      setDraft(draft.filter((_, j) => j !== i));
                      setFocusAt(
                        draft.length > 1 ? `internal-user-${Math.min(i, draft.length - 2)}` : 'internal-user-add',
                      );
                    }}
                  >
                    Remove
                  </button>
                </div>
                <FieldError id={`${id}-error`} message={error} />
              </div>
            );
          })}
          {problem && (
            <p role="alert" className="error">
              {problem}
            </p>
          )}
          <div className="actions">
            <button
              type="button"
              id="internal-user-add"
              className="secondary"
              disabled={draft.length >= 100}
              onClick={() => {
                setDraft([...draft, '']);
                setFocusAt(`internal-user-${draft.length}`);
              }}
            >
              Add a user id or prefix
            </button>
          </div>
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save internal and test users
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(undefined);
                save.reset();
                setFocusAt('internal-users-edit');
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
