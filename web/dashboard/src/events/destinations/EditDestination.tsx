import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { ingestApi, seg, type ApiCreatedDestination, type ApiDestination, type DestinationKind } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';
import { VENDORS } from './vendors.ts';

const UNREACHABLE = 'the ingest service could not be reached';

/** `Receiving URL` reads `receiving URL` after `New`; an initialism (`API host`) stays as it is. */
const lowerFirst = (label: string) => (/^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label);

/**
 * Changes a destination over `PATCH /destinations/{id}`: its name, its URL, its secrets. The URL and the secrets are
 * write-only, as at creation: the fields start empty and an empty field keeps what is held, so nothing sealed is ever
 * sent back to the browser. Secrets given replace the held ones whole (the service checks them as at creation). Only
 * what changed is sent; a refusal is said next to the field it names (a URL on the internal network included).
 */
export function EditDestination({
  destination,
  onClose,
  onSaved,
}: {
  destination: ApiDestination;
  onClose: () => void;
  onSaved: (d: ApiCreatedDestination) => void;
}) {
  const [name, setName] = useState(destination.name);
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const vendor = VENDORS[destination.kind as DestinationKind];
  const given = vendor.secrets.filter((s) => secrets[s.name]?.trim());
  const save = useMutation({
    mutationFn: () => {
      const credentials = Object.fromEntries(given.map((s) => [s.name, secrets[s.name]!.trim()]));
      return ingestApi.call<ApiCreatedDestination>('PATCH', `/destinations/${seg(destination.id)}`, {
        body: {
          ...(name !== destination.name ? { name } : {}),
          ...(url.trim() ? { base_url: url.trim() } : {}),
          ...(given.length ? { credentials } : {}),
        },
      });
    },
    onSuccess: onSaved,
  });
  const secretFields = vendor.secrets.map((s) => `credentials.${s.name}`);
  const errors = fieldErrors(save.error, ['name', 'base_url', ...secretFields], UNREACHABLE) as Record<
    string,
    string | undefined
  >;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <ModalDialog title={`Edit ${destination.name}`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="edit-dest-name">Name</label>
        <input
          id="edit-dest-name"
          required
          maxLength={200}
          autoComplete="off"
          data-autofocus
          value={name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? 'edit-dest-name-error' : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <FieldError id="edit-dest-name-error" message={errors.name} />
        <label htmlFor="edit-dest-url">New {lowerFirst(vendor.url.label.replace(' (optional)', ''))}</label>
        <input
          id="edit-dest-url"
          type="url"
          maxLength={2000}
          autoComplete="off"
          spellCheck={false}
          value={url}
          aria-invalid={errors.base_url ? true : undefined}
          aria-describedby={errors.base_url ? 'edit-dest-url-hint edit-dest-url-error' : 'edit-dest-url-hint'}
          onChange={(e) => setUrl(e.target.value)}
        />
        <p id="edit-dest-url-hint" className="hint">
          Now <code>{destination.base_url}</code>, the rest kept sealed. Empty: unchanged.
        </p>
        <FieldError id="edit-dest-url-error" message={errors.base_url} />
        <fieldset className="form">
          <legend>Replace the secrets</legend>
          <p id="edit-dest-secrets-hint" className="hint">
            Held: {destination.credential_fields.length ? destination.credential_fields.join(', ') : 'none'}, never
            shown. All empty: unchanged. Any given: they replace the held ones whole.
          </p>
          {vendor.secrets.map((s) => {
            const id = `edit-dest-secret-${s.name}`;
            const error = errors[`credentials.${s.name}`];
            return (
              <div key={s.name} className="form">
                <label htmlFor={id}>{s.label.replace(' (optional)', '')}</label>
                <input
                  id={id}
                  type="password"
                  required={given.length > 0 && s.required}
                  maxLength={1000}
                  autoComplete="new-password"
                  spellCheck={false}
                  value={secrets[s.name] ?? ''}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={['edit-dest-secrets-hint', error ? `${id}-error` : ''].filter(Boolean).join(' ')}
                  onChange={(e) => setSecrets({ ...secrets, [s.name]: e.target.value })}
                />
                <FieldError id={`${id}-error`} message={error} />
              </div>
            );
          })}
        </fieldset>
        <DialogEnd error={errors.other} onClose={onClose}>
          <button type="submit" disabled={save.isPending}>
            Save changes
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
