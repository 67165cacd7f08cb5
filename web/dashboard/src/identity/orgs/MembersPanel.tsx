import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Pager } from '../../admin/Pager.tsx';
import { ConfirmDialog, DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import { KNOWN_ROLES, ROLE_PATTERN, type ApiMember, type ApiOrganization } from './api.ts';

const ACTIVE = { active: 'true' };

const nameOf = (m: ApiMember) => m.principal.display_name || m.principal.identifier;

/** The roles offered while typing one (any other fitting ROLE_PATTERN may be typed). */
function RoleChoices({ id }: { id: string }) {
  return (
    <datalist id={id}>
      {KNOWN_ROLES.map((r) => (
        <option key={r} value={r} />
      ))}
    </datalist>
  );
}

/**
 * An organization's current members with who they are and their role: add someone by email or identifier, change a
 * role, remove a member (the membership is kept, inactive; adding them again brings it back with the role given).
 */
export function MembersPanel({ org }: { org: ApiOrganization }) {
  const client = useQueryClient();
  const base = `/organizations/${encodeURIComponent(org.id)}`;
  const pages = useCursorPages<ApiMember>(
    keys.organizations.members(org.id),
    `${base}/people`,
    ACTIVE,
    25,
    identityApi.get,
  );
  const [said, setSaid] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [role, setRole] = useState('member');
  const [changing, setChanging] = useState<ApiMember>();
  const [removing, setRemoving] = useState<ApiMember>();
  const heading = useRef<HTMLHeadingElement>(null);
  const changed = () => client.invalidateQueries({ queryKey: keys.organizations.members(org.id) });

  const add = useMutation({
    mutationFn: () =>
      identityApi.call<ApiMember>('POST', `${base}/people`, { body: { identifier: identifier.trim(), role } }),
    onMutate: () => setSaid(''),
    onSuccess: async (m) => {
      setSaid(`${nameOf(m)} is a member, as ${m.role}.`);
      setIdentifier('');
      await changed();
    },
  });
  const remove = useMutation({
    mutationFn: (m: ApiMember) =>
      identityApi.call<ApiMember>('DELETE', `${base}/members/${encodeURIComponent(m.principal_id)}`),
    // Read again before the dialog closes, so the focus goes to the section's heading, not a button about to go.
    onSuccess: async (_, m) => {
      await changed();
      setRemoving(undefined);
      setSaid(`${nameOf(m)} is no longer a member.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  const count = pages.items?.length;

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title" ref={heading} tabIndex={-1}>
        Members
      </h2>
      {org.active ? (
        <form className="form inline-form" onSubmit={submit} aria-label="Add a member">
          <label htmlFor="member-identifier">Email or identifier</label>
          <input
            id="member-identifier"
            required
            maxLength={320}
            autoComplete="off"
            aria-describedby="member-identifier-hint"
            value={identifier}
            onChange={(e) => setIdentifier(e.target.value)}
          />
          <p id="member-identifier-hint" className="hint">
            A person's email, or a service's or agent's identifier. Someone without an account yet is invited below.
          </p>
          <label htmlFor="member-role">Role</label>
          <input
            id="member-role"
            required
            maxLength={100}
            pattern={ROLE_PATTERN}
            list="member-roles"
            autoComplete="off"
            value={role}
            onChange={(e) => setRole(e.target.value)}
          />
          <RoleChoices id="member-roles" />
          {add.error && (
            <p role="alert" className="error">
              {messageOf(add.error)}
            </p>
          )}
          <button type="submit" disabled={add.isPending}>
            Add member
          </button>
        </form>
      ) : (
        <p className="hint">The organization is deactivated: reactivate it to add members.</p>
      )}
      <p role="status" className="status">
        {said ||
          (count === undefined
            ? ''
            : count === 0
              ? 'No members yet.'
              : `${count} member${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`)}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the members could not be loaded')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Members">
          <table>
            <caption>Members of {org.name}</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Email or identifier</th>
                <th scope="col">Kind</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((m) => (
                <tr key={m.principal_id}>
                  <th scope="row">
                    {nameOf(m)}
                    {!m.principal.active && <span className="hint block">account deactivated</span>}
                  </th>
                  <td>{m.principal.email ?? m.principal.identifier}</td>
                  <td>{m.principal.type === 'human' ? 'person' : m.principal.type}</td>
                  <td>{m.role}</td>
                  <td>{whenOrNever(m.created_at)}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Change role of ${nameOf(m)}`}
                      onClick={() => setChanging(m)}
                    >
                      Change role
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Remove ${nameOf(m)}`}
                      onClick={() => setRemoving(m)}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Members" />
      {changing && (
        <RoleDialog
          base={base}
          member={changing}
          onClose={() => setChanging(undefined)}
          onSaved={async (m) => {
            setChanging(undefined);
            setSaid(`${nameOf(m)} is now ${m.role}.`);
            await changed();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${nameOf(removing)}?`}
          confirm="Remove member"
          busy={remove.isPending}
          error={remove.error ? messageOf(remove.error) : undefined}
          onConfirm={() => remove.mutate(removing)}
          onClose={() => {
            setRemoving(undefined);
            remove.reset();
          }}
          fallback={() => heading.current}
        >
          <p>
            {nameOf(removing)} loses the {removing.role} role in {org.name}, and tokens bound to the organization stop
            counting for them at once.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function RoleDialog({
  base,
  member,
  onClose,
  onSaved,
}: {
  base: string;
  member: ApiMember;
  onClose: () => void;
  onSaved: (m: ApiMember) => Promise<void>;
}) {
  const [role, setRole] = useState(member.role);
  const save = useMutation({
    mutationFn: () =>
      identityApi.call<ApiMember>('PATCH', `${base}/members/${encodeURIComponent(member.principal_id)}`, {
        body: { role },
      }),
    onSuccess: (m) => onSaved({ ...member, role: m.role }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <ModalDialog title={`Role of ${nameOf(member)}`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="change-role">Role</label>
        <input
          id="change-role"
          required
          maxLength={100}
          pattern={ROLE_PATTERN}
          list="change-roles"
          autoComplete="off"
          data-autofocus
          aria-describedby="change-role-hint"
          value={role}
          onChange={(e) => setRole(e.target.value)}
        />
        <RoleChoices id="change-roles" />
        <p id="change-role-hint" className="hint">
          Owners and admins manage the organization's listings, licenses and seats.
        </p>
        <DialogEnd error={save.error ? messageOf(save.error) : undefined} onClose={onClose}>
          <button type="submit" disabled={save.isPending}>
            Save role
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
