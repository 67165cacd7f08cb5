import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type { ApiCreatedUser, ApiUser } from '../api/types.ts';
import { messageOf } from '../data/errors.ts';
import { ROLE_NAMES, assignableRoles, type Role } from './format.ts';

/**
 * Adds a person by email: they become a member when they first sign in with a provider that verifies it. With the
 * platform's identity service linked, the answer also says whether identity made them an account (with a link to
 * choose its password) or had one; the screen shows that.
 */
export function AddUserForm({
  me,
  onSaved,
  onCancel,
}: {
  me: ApiUser;
  onSaved: (user: ApiCreatedUser) => void;
  onCancel: () => void;
}) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const add = useMutation({
    mutationFn: async () => (await api<ApiCreatedUser>('POST', '/admin/users', { body: { email, name, role } })).data,
    onSuccess: onSaved,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };

  return (
    <form className="form" onSubmit={submit} aria-labelledby="add-user-title">
      <h2 id="add-user-title">Add a user</h2>
      <label htmlFor="user-email">Email</label>
      <input
        id="user-email"
        type="email"
        required
        maxLength={254}
        autoComplete="off"
        aria-describedby="user-email-hint"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoFocus
      />
      <p id="user-email-hint" className="hint">
        They sign in with a provider (the platform's identity service, GitHub, Google) that confirms this address.
      </p>
      <label htmlFor="user-name">Name</label>
      <input
        id="user-name"
        required
        maxLength={200}
        autoComplete="off"
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <label htmlFor="user-role">Role</label>
      <select id="user-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {assignableRoles(me).map((r) => (
          <option key={r} value={r}>
            {ROLE_NAMES[r]}
          </option>
        ))}
      </select>
      {add.error && (
        <p role="alert" className="error">
          {messageOf(add.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={add.isPending}>
          Add user
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
