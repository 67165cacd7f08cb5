import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { messageOf } from '../data/errors.ts';
import type { ApiSetupBody, ApiSetupResult, ApiSetupStatus } from '../api/types.ts';
import { useScreen } from '../app/useTitle.ts';

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);

type Field = 'tenantName' | 'tenantSlug' | 'name' | 'email' | 'password' | 'passwordConfirmation';

/**
 * First run: no user exists yet, so the first visitor creates the organisation and becomes its owner. When
 * `platform start` runs the identity service beside the dashboard, the owner also chooses the password of an account
 * there, to sign in with right after.
 */
export function SetupScreen({ status, onDone }: { status: ApiSetupStatus; onDone: (result: ApiSetupResult) => void }) {
  useScreen('Set up');
  const withPassword = status.platformAccount;
  const minLength = status.minPasswordLength ?? 12;
  const [form, setForm] = useState<Required<ApiSetupBody>>({
    tenantName: '',
    tenantSlug: '',
    name: '',
    email: '',
    password: '',
    passwordConfirmation: '',
  });
  const [slugEdited, setSlugEdited] = useState(false);
  // The two passwords differing is said here before anything is sent; the service's refusals come from `create`.
  const [mismatch, setMismatch] = useState(false);
  const create = useMutation({
    mutationFn: async (body: ApiSetupBody) => (await api<ApiSetupResult>('POST', '/setup', { body })).data,
    onSuccess: onDone,
  });
  const error = mismatch
    ? 'The two passwords differ: type the same password twice.'
    : create.error
      ? messageOf(create.error)
      : undefined;
  const set = (field: Field, value: string) =>
    setForm((f) => ({
      ...f,
      [field]: value,
      ...(field === 'tenantName' && !slugEdited ? { tenantSlug: slugOf(value) } : {}),
    }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.reset();
    // The server checks it too; saying it here keeps the person on the field.
    const differ = withPassword && form.password !== form.passwordConfirmation;
    setMismatch(differ);
    if (differ) return;
    const { password, passwordConfirmation, ...rest } = form;
    create.mutate(withPassword ? { ...rest, password, passwordConfirmation } : rest);
  };

  return (
    <>
      <h1>Welcome: create the first owner</h1>
      <p>
        Nobody uses this installation yet. Name your organisation and yourself; you become its owner and can invite
        others afterwards. This can be done once.
      </p>
      <form onSubmit={submit} className="form" aria-describedby={error ? 'setup-error' : undefined}>
        <label htmlFor="tenantName">Organisation name</label>
        <input
          id="tenantName"
          required
          maxLength={200}
          value={form.tenantName}
          onChange={(e) => set('tenantName', e.target.value)}
          autoComplete="organization"
        />
        <label htmlFor="tenantSlug">Organisation short name</label>
        <input
          id="tenantSlug"
          required
          maxLength={100}
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          aria-describedby="slug-hint"
          value={form.tenantSlug}
          onChange={(e) => {
            setSlugEdited(true);
            set('tenantSlug', e.target.value);
          }}
        />
        <p id="slug-hint" className="hint">
          Lower-case letters, digits and single hyphens.
        </p>
        <label htmlFor="ownerName">Your name</label>
        <input
          id="ownerName"
          required
          maxLength={200}
          value={form.name}
          onChange={(e) => set('name', e.target.value)}
          autoComplete="name"
        />
        <label htmlFor="ownerEmail">Your email</label>
        <input
          id="ownerEmail"
          type="email"
          required
          maxLength={254}
          aria-describedby="email-hint"
          value={form.email}
          onChange={(e) => set('email', e.target.value)}
          autoComplete="email"
        />
        <p id="email-hint" className="hint">
          {withPassword
            ? 'Your sign-in name at the platform account.'
            : 'You sign in with a provider that confirms this address.'}
        </p>
        {withPassword && (
          <>
            <label htmlFor="ownerPassword">Password</label>
            <input
              id="ownerPassword"
              type="password"
              required
              minLength={minLength}
              maxLength={1024}
              aria-describedby="password-hint"
              value={form.password}
              onChange={(e) => set('password', e.target.value)}
              autoComplete="new-password"
            />
            <p id="password-hint" className="hint">
              At least {minLength} characters. You sign in with it at the platform account; this service never keeps it.
            </p>
            <label htmlFor="ownerPasswordConfirmation">Password again</label>
            <input
              id="ownerPasswordConfirmation"
              type="password"
              required
              minLength={minLength}
              maxLength={1024}
              value={form.passwordConfirmation}
              onChange={(e) => set('passwordConfirmation', e.target.value)}
              autoComplete="new-password"
            />
          </>
        )}
        {error && (
          <p id="setup-error" role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={create.isPending}>
          Create owner
        </button>
      </form>
    </>
  );
}
