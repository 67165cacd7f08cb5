import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import {
  ingestApi,
  ingestKeys,
  seg,
  type ApiCreatedDestination,
  type ApiProject,
  type DestinationKind,
} from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';
import { VENDORS } from './vendors.ts';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * Adds a destination to a project: its name, its vendor, the vendor's address and secrets. Secrets are sent once and
 * sealed by the service, never shown back (password fields, nothing kept after the dialog closes). A refusal is said
 * next to the field it names.
 */
export function NewDestination({
  project,
  onClose,
  onCreated,
}: {
  project: ApiProject;
  onClose: () => void;
  onCreated: (d: ApiCreatedDestination) => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<DestinationKind>('webhook');
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const vendor = VENDORS[kind];
  const create = useMutation({
    mutationFn: () => {
      const credentials = Object.fromEntries(
        vendor.secrets.filter((s) => secrets[s.name]?.trim()).map((s) => [s.name, secrets[s.name]!.trim()]),
      );
      return ingestApi.call<ApiCreatedDestination>('POST', `/projects/${seg(project.id)}/destinations`, {
        body: {
          name,
          kind,
          ...(url.trim() ? { base_url: url.trim() } : {}),
          ...(Object.keys(credentials).length ? { credentials } : {}),
        },
      });
    },
    onSuccess: async (d) => {
      await client.invalidateQueries({ queryKey: ingestKeys.destinations(project.id) });
      onCreated(d);
    },
  });
  const secretFields = vendor.secrets.map((s) => `credentials.${s.name}`);
  const errors = fieldErrors(create.error, ['name', 'kind', 'base_url', ...secretFields], UNREACHABLE) as Record<
    string,
    string | undefined
  >;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <ModalDialog title={`New destination of ${project.name}`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="dest-name">Name</label>
        <input
          id="dest-name"
          required
          maxLength={200}
          autoComplete="off"
          data-autofocus
          value={name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? 'dest-name-error' : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <FieldError id="dest-name-error" message={errors.name} />
        <label htmlFor="dest-kind">Vendor</label>
        <select
          id="dest-kind"
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as DestinationKind);
            setSecrets({});
            create.reset();
          }}
        >
          {(Object.keys(VENDORS) as DestinationKind[]).map((k) => (
            <option key={k} value={k}>
              {VENDORS[k].label}
            </option>
          ))}
        </select>
        <FieldError id="dest-kind-error" message={errors.kind} />
        <label htmlFor="dest-url">{vendor.url.label}</label>
        <input
          id="dest-url"
          type="url"
          required={vendor.url.required}
          maxLength={2000}
          autoComplete="off"
          spellCheck={false}
          value={url}
          aria-invalid={errors.base_url ? true : undefined}
          aria-describedby={errors.base_url ? 'dest-url-hint dest-url-error' : 'dest-url-hint'}
          onChange={(e) => setUrl(e.target.value)}
        />
        <p id="dest-url-hint" className="hint">
          {vendor.url.hint}
        </p>
        <FieldError id="dest-url-error" message={errors.base_url} />
        {vendor.secrets.map((s) => {
          const id = `dest-secret-${s.name}`;
          const error = errors[`credentials.${s.name}`];
          return (
            <div key={`${kind}-${s.name}`} className="form">
              <label htmlFor={id}>{s.label}</label>
              <input
                id={id}
                type="password"
                required={s.required}
                maxLength={1000}
                autoComplete="new-password"
                spellCheck={false}
                value={secrets[s.name] ?? ''}
                aria-invalid={error ? true : undefined}
                aria-describedby={
                  [s.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
                }
                onChange={(e) => setSecrets({ ...secrets, [s.name]: e.target.value })}
              />
              {s.hint && (
                <p id={`${id}-hint`} className="hint">
                  {s.hint}
                </p>
              )}
              <FieldError id={`${id}-error`} message={error} />
            </div>
          );
        })}
        <p className="hint">Secrets are stored encrypted and never shown again, here or anywhere.</p>
        <DialogEnd error={errors.other} onClose={onClose}>
          <button type="submit" disabled={create.isPending}>
            Add destination
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
