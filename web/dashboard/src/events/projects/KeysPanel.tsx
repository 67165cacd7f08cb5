import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { useCursorPages } from '../../data/paging.ts';
import {
  ingestApi,
  ingestKeys,
  seg,
  type ApiCreatedIngestKey,
  type ApiIngestKey,
  type ApiProject,
} from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * A project's API keys, oldest first: each by its first characters (ingest keeps only a hash). A new key is shown once,
 * here and in the snippet below; revoking one, confirmed in a dialog, stops it at once on every instance.
 */
export function KeysPanel({ project, onCreated }: { project: ApiProject; onCreated: (key: string) => void }) {
  const client = useQueryClient();
  const key = ingestKeys.keys(project.id);
  const pages = useCursorPages<ApiIngestKey>(key, `/projects/${seg(project.id)}/keys`, {}, 25, ingestApi.get);
  const [name, setName] = useState('');
  const [fresh, setFresh] = useState<ApiCreatedIngestKey>();
  const [said, setSaid] = useState('');
  const [revoking, setRevoking] = useState<ApiIngestKey>();
  const create = useMutation({
    mutationFn: () =>
      ingestApi.call<ApiCreatedIngestKey>('POST', `/projects/${seg(project.id)}/keys`, {
        body: name.trim() ? { name: name.trim() } : {},
      }),
    onSuccess: async (k) => {
      setFresh(k);
      setName('');
      setSaid('');
      onCreated(k.key);
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (k: ApiIngestKey) =>
      ingestApi.call<ApiIngestKey>('DELETE', `/projects/${seg(project.id)}/keys/${seg(k.id)}`),
    onSuccess: async (k) => {
      setRevoking(undefined);
      setFresh(undefined);
      setSaid(`The key ${k.prefix}… is revoked: events sent with it are refused from now on.`);
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const errors = fieldErrors(create.error, ['name'], UNREACHABLE);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="screen-section" aria-labelledby="project-keys">
      <h2 id="project-keys">API keys</h2>
      <p className="hint">
        A page or app sends its events with a key. Ingest keeps only a hash and the first characters: a key is shown
        once, when it is made.
      </p>
      <form className="form inline-form" onSubmit={submit} aria-label="New API key">
        <label htmlFor="key-name">Name of the new key (optional)</label>
        <input
          id="key-name"
          maxLength={200}
          autoComplete="off"
          value={name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? 'key-name-hint key-name-error' : 'key-name-hint'}
          onChange={(e) => setName(e.target.value)}
        />
        <p id="key-name-hint" className="hint">
          Where it is used: “web shop”, “staging”.
        </p>
        <FieldError id="key-name-error" message={errors.name} />
        {errors.other && (
          <p role="alert" className="error">
            {errors.other}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Create API key
          </button>
        </div>
      </form>
      {fresh && (
        <SecretOnce
          title="The new API key, shown this once"
          label={`the new API key of ${project.name}`}
          value={fresh.key}
          note="Copy it now into the page or app that sends events (the snippet below has it too): it cannot be shown again."
        />
      )}
      <p role="status" className="status">
        {said}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, UNREACHABLE)}
        </p>
      )}
      {pages.items && pages.items.length === 0 && <p>No key yet: nothing can send events to this project.</p>}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="API keys">
          <table>
            <caption>API keys of {project.name}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Made</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((k) => (
                <tr key={k.id}>
                  <th scope="row">
                    <code>{k.prefix}…</code>
                  </th>
                  <td>{k.name || 'no name'}</td>
                  <td>{whenOrNever(k.created_at)}</td>
                  <td>{k.revoked_at ? `revoked ${whenOrNever(k.revoked_at)}` : 'active'}</td>
                  <td className="actions">
                    {!k.revoked_at && (
                      <button
                        type="button"
                        className="danger small"
                        aria-label={`Revoke the key ${k.prefix}…`}
                        onClick={() => {
                          revoke.reset();
                          setRevoking(k);
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="API keys" />
      {revoking && (
        <ConfirmDialog
          title={`Revoke the key ${revoking.prefix}…?`}
          confirm="Revoke"
          busy={revoke.isPending}
          error={revoke.error ? messageOf(revoke.error, UNREACHABLE) : undefined}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => setRevoking(undefined)}
        >
          <p>Events sent with it are refused at once, on every instance of the service. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
