import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiDashboardAccess, ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { accessQuery, allUsersQuery } from '../data/queries.ts';

type Right = 'none' | 'view' | 'edit';

/**
 * Who can see the dashboard (docs/dashboard.md, "Access to a dashboard"): the whole tenant, or only the people named
 * (besides admins and its creator, who always see it). Only admins can list the tenant's people, so only they choose
 * people here; an editor may still open it to the tenant or restrict it to those already named.
 */
export function AccessSection({ me, id }: { me: ApiUser; id: number }) {
  const client = useQueryClient();
  const admin = atLeast(me, 'admin');
  const current = useQuery(accessQuery(id));
  const users = useQuery({ ...allUsersQuery(), enabled: admin });
  const access = current.data;
  // Kept here: saving replaces the cached access, and the form starts again from it (its key).
  const [said, setSaid] = useState('');
  return (
    <section className="access" aria-labelledby="access-h">
      <h3 id="access-h">Who can see this dashboard</h3>
      <div role="alert" className="error">
        {current.error ? messageOf(current.error) : ''}
      </div>
      {access && (
        <AccessForm
          key={JSON.stringify(access)}
          access={access}
          people={admin ? (users.data ?? []).filter((u) => u.active && u.role !== 'admin' && u.role !== 'owner') : []}
          admin={admin}
          onSaved={(now) => {
            setSaid(
              now.restricted
                ? 'Saved: only admins, its creator and the people chosen see this dashboard.'
                : 'Saved: everyone in the tenant sees this dashboard.',
            );
            client.setQueryData(keys.dashboards.access(id), now);
          }}
          id={id}
        />
      )}
      <p role="status" className="status">
        {said}
      </p>
    </section>
  );
}

function AccessForm({
  id,
  access,
  people,
  admin,
  onSaved,
}: {
  id: number;
  access: ApiDashboardAccess;
  people: ApiUser[];
  admin: boolean;
  onSaved: (now: ApiDashboardAccess) => void;
}) {
  const [restricted, setRestricted] = useState(access.restricted);
  const [rights, setRights] = useState<Record<number, Right>>(() =>
    Object.fromEntries([
      ...access.viewers.map((u) => [u, 'view' as Right]),
      ...access.editors.map((u) => [u, 'edit' as Right]),
    ]),
  );
  const save = useMutation({
    mutationFn: async () => {
      const ids = (r: Right) =>
        Object.entries(rights)
          .filter(([, v]) => v === r)
          .map(([k]) => Number(k));
      return (
        await api<ApiDashboardAccess>('PUT', `/dashboards/${id}/access`, {
          body: { restricted, viewers: ids('view'), editors: ids('edit') },
        })
      ).data;
    },
    onSuccess: onSaved,
  });
  const named = access.viewers.length + access.editors.length;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit}>
      <fieldset>
        <legend>Visible to</legend>
        <label className="check">
          <input type="radio" name="access" checked={!restricted} onChange={() => setRestricted(false)} /> Everyone in
          the tenant
        </label>
        <label className="check">
          <input type="radio" name="access" checked={restricted} onChange={() => setRestricted(true)} /> Only these
          people
        </label>
      </fieldset>
      {restricted && (
        <>
          <p className="hint">Admins and the dashboard's creator always see it. A person who can view never edits.</p>
          {admin ? (
            <ul className="access-people">
              {people.map((u) => (
                <li key={u.id}>
                  <label htmlFor={`access-${u.id}`}>
                    {u.name} ({u.email}, {u.role})
                  </label>{' '}
                  <select
                    id={`access-${u.id}`}
                    value={rights[u.id] ?? 'none'}
                    onChange={(e) => setRights((r) => ({ ...r, [u.id]: e.target.value as Right }))}
                  >
                    <option value="none">No access</option>
                    <option value="view">Can view</option>
                    {u.role !== 'viewer' && <option value="edit">Can edit</option>}
                  </select>
                </li>
              ))}
            </ul>
          ) : (
            <p className="hint">
              {named === 1 ? '1 person is' : `${named} people are`} named. Only an admin can choose people.
            </p>
          )}
        </>
      )}
      <div role="alert" className="error">
        {save.error ? messageOf(save.error) : ''}
      </div>
      <p>
        <button type="submit" disabled={save.isPending}>
          Save who can see it
        </button>
      </p>
    </form>
  );
}
