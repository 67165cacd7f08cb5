import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { ApiCreatedUser, ApiPasswordLink, ApiUser } from '../api/types.ts';
import { useScreen } from '../app/useTitle.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { useCursorPages } from '../data/paging.ts';
import { setupQuery } from '../data/queries.ts';
import { AddUserForm } from './AddUserForm.tsx';
import { SetupLinkNotice, addedMessage } from './SetupLinkNotice.tsx';
import { ROLE_NAMES, assignableRoles, mayChange, type Role } from './format.ts';
import { whenOrNever } from '../app/datetime.ts';
import { Pager } from './Pager.tsx';
import { useReturnFocus } from './useReturnFocus.ts';
import { WideTable } from '../app/WideTable.tsx';
import { useConfirm } from '../app/useConfirm.tsx';

const NO_FILTERS = {};

/** The tenant's users (admins and owners): add one, change a role, deactivate and reactivate, send a new password link. */
export default function UsersScreen({ me }: { me: ApiUser }) {
  useScreen('Users');
  const client = useQueryClient();
  const pages = useCursorPages<ApiUser>(keys.users.pages(), '/admin/users', NO_FILTERS);
  const [panel, setPanel] = useState<{ kind: 'none' } | { kind: 'add' } | { kind: 'role'; user: ApiUser }>({
    kind: 'none',
  });
  const [message, setMessage] = useState('');
  // The last one-time password link (Add user's or a new one): held only here, gone with the next action or a reload.
  const [added, setAdded] = useState<ApiCreatedUser | null>(null);
  const addButton = useReturnFocus<HTMLButtonElement>(panel.kind !== 'none');
  // Password links exist only when `platform start` runs identity beside the dashboard; /setup says whether it does.
  const linked = useQuery(setupQuery()).data?.platformAccount ?? false;
  // Every user changed here changes the pages and the audit log's list of actors.
  const changedUsers = () => client.invalidateQueries({ queryKey: keys.users.all });

  // Deactivate, reactivate, a new password link: one at a time, answered in the status line, refused in the alert.
  const action = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => {
      setMessage('');
      setAdded(null);
    },
    onSuccess: (said) => {
      if (said) setMessage(said);
      return changedUsers();
    },
  });
  const act = (what: () => Promise<string>) => action.mutate(what);
  const [confirmFirst, confirming] = useConfirm();
  const deactivate = async (u: ApiUser) => {
    const yes = await confirmFirst({
      title: `Deactivate ${u.name}?`,
      body: 'They are signed out everywhere at once.',
      confirm: 'Deactivate',
    });
    if (!yes) return;
    act(async () => {
      await api('DELETE', `/admin/users/${u.id}`);
      return `${u.name} is deactivated.`;
    });
  };
  const newLink = (u: ApiUser) =>
    act(async () => {
      const { data } = await api<ApiPasswordLink>('POST', `/admin/users/${u.id}/password-link`);
      setAdded({ ...u, ...data });
      return `A new password link for ${u.name}: links sent before no longer work.`;
    });
  const reactivate = (u: ApiUser) =>
    act(async () => {
      await api('PATCH', `/admin/users/${u.id}`, { body: { active: true } });
      return `${u.name} is active again and can sign in.`;
    });

  return (
    <>
      <h1>Users</h1>
      <p role="status" className="status">
        {message}
      </p>
      {(action.error || pages.error) && (
        <p role="alert" className="error">
          {messageOf(action.error ?? pages.error, action.error ? undefined : 'the list could not be loaded')}
        </p>
      )}
      {added?.setupLink && added.setupLinkExpiresAt && (
        <SetupLinkNotice
          user={{ ...added, setupLink: added.setupLink, setupLinkExpiresAt: added.setupLinkExpiresAt }}
        />
      )}
      {panel.kind === 'none' && (
        <button
          type="button"
          ref={addButton}
          onClick={() => {
            setAdded(null);
            setMessage('');
            setPanel({ kind: 'add' });
          }}
        >
          Add user
        </button>
      )}
      {panel.kind === 'add' && (
        <AddUserForm
          me={me}
          onCancel={() => setPanel({ kind: 'none' })}
          onSaved={(u) => {
            setPanel({ kind: 'none' });
            setMessage(addedMessage(u));
            setAdded(u);
            void changedUsers();
          }}
        />
      )}
      {panel.kind === 'role' && (
        <RoleForm
          me={me}
          user={panel.user}
          onCancel={() => setPanel({ kind: 'none' })}
          onSaved={(m) => {
            setPanel({ kind: 'none' });
            setAdded(null);
            setMessage(m);
            void changedUsers();
          }}
        />
      )}
      {pages.items && (
        <WideTable label="People who may sign in">
          <table>
            <caption>People who may sign in to this tenant{pages.page > 1 ? ` (page ${pages.page})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((u) => (
                <tr key={u.id}>
                  <th scope="row">
                    {u.name}
                    {u.id === me.id ? ' (you)' : ''}
                  </th>
                  <td>{u.email}</td>
                  <td>{ROLE_NAMES[u.role]}</td>
                  <td>{u.active ? 'active' : 'deactivated'}</td>
                  <td>{whenOrNever(u.lastLoginAt)}</td>
                  <td className="actions">
                    {mayChange(me, u) && u.active && (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => {
                          setAdded(null);
                          setPanel({ kind: 'role', user: u });
                        }}
                        aria-label={`Change role of ${u.name}`}
                      >
                        Change role
                      </button>
                    )}
                    {mayChange(me, u) && u.active && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => deactivate(u)}
                        aria-label={`Deactivate ${u.name}`}
                      >
                        Deactivate
                      </button>
                    )}
                    {linked && mayChange(me, u) && u.active && (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => newLink(u)}
                        aria-label={`New password link for ${u.name}`}
                      >
                        New password link
                      </button>
                    )}
                    {mayChange(me, u) && !u.active && (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => reactivate(u)}
                        aria-label={`Reactivate ${u.name}`}
                      >
                        Reactivate
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Users" />
      {confirming}
    </>
  );
}

function RoleForm({
  me,
  user,
  onSaved,
  onCancel,
}: {
  me: ApiUser;
  user: ApiUser;
  onSaved: (m: string) => void;
  onCancel: () => void;
}) {
  const [role, setRole] = useState<Role>(user.role);
  const change = useMutation({
    mutationFn: (to: Role) => api('PATCH', `/admin/users/${user.id}`, { body: { role: to } }),
    onSuccess: (_, to) => onSaved(`${user.name} is now ${ROLE_NAMES[to].toLowerCase()}.`),
  });
  return (
    <form
      className="form"
      aria-labelledby="role-title"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate(role);
      }}
    >
      <h2 id="role-title">Change the role of {user.name}</h2>
      <label htmlFor="role-select">Role</label>
      <select
        id="role-select"
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
        aria-describedby="role-hint"
        autoFocus
      >
        {assignableRoles(me).map((r) => (
          <option key={r} value={r}>
            {ROLE_NAMES[r]}
          </option>
        ))}
      </select>
      <p id="role-hint" className="hint">
        Viewers look at dashboards; editors also write SQL and build dashboards; admins also manage users and data
        sources; owners also manage tenants.
      </p>
      {change.error && (
        <p role="alert" className="error">
          {messageOf(change.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={change.isPending}>
          Save role
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
