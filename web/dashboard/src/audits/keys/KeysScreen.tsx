import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { auditsApi, type ApiAuditKey, type ApiCreatedAuditKey } from '../api.ts';
import '../audits.css';

const nameOf = (k: ApiAuditKey) => k.name || `${k.prefix}…`;

/**
 * The person's API keys for CI (`platform audit run` with AUDIT_KEY): made with a name and shown once, listed by name
 * and first characters, revoked after a confirmation. A key speaks for the person: its runs are listed with theirs.
 */
export default function KeysScreen() {
  useScreen('API keys');
  const client = useQueryClient();
  const pages = useCursorPages<ApiAuditKey>(keys.audits.keys, '/keys', {}, 25, auditsApi.get);
  const [name, setName] = useState('');
  const [fresh, setFresh] = useState<ApiCreatedAuditKey>();
  const [said, setSaid] = useState('');
  const [revoking, setRevoking] = useState<ApiAuditKey>();
  const heading = useRef<HTMLHeadingElement>(null);
  const create = useMutation({
    mutationFn: () =>
      auditsApi.call<ApiCreatedAuditKey>('POST', '/keys', { body: name.trim() ? { name: name.trim() } : {} }),
    onSuccess: async (k) => {
      setName('');
      setFresh(k);
      setSaid('');
      await client.invalidateQueries({ queryKey: keys.audits.keys });
    },
  });
  const revoke = useMutation({
    mutationFn: (k: ApiAuditKey) => auditsApi.call<ApiAuditKey>('DELETE', `/keys/${encodeURIComponent(k.id)}`),
    onSuccess: async (k) => {
      await client.invalidateQueries({ queryKey: keys.audits.keys });
      setRevoking(undefined);
      setFresh(undefined);
      setSaid(`The key ${nameOf(k)} is revoked: it no longer works.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFresh(undefined);
    create.mutate();
  };
  const count = pages.items?.length;

  return (
    <>
      <h1 ref={heading}>API keys</h1>
      <p className="description">
        Keys for CI jobs: <code>platform audit run --server &lt;audit URL&gt;</code> with the key in{' '}
        <code>AUDIT_KEY</code>. A key acts as you: its runs are listed with yours. It is shown once, when it is made.
      </p>
      <form className="filters-bar" onSubmit={submit}>
        <div className="field">
          <label htmlFor="key-name">Name</label>
          <input
            id="key-name"
            type="text"
            maxLength={200}
            aria-describedby="key-name-hint"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <span id="key-name-hint" className="hint">
            What the key is for, such as the CI pipeline that uses it; optional
          </span>
        </div>
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </div>
      </form>
      {create.error && (
        <p role="alert" className="error">
          {messageOf(create.error, 'the audit service could not be reached')}
        </p>
      )}
      {fresh && (
        <SecretOnce
          title={`New key ${nameOf(fresh)}`}
          label={`the API key ${nameOf(fresh)}`}
          value={fresh.key}
          note="Copy it now into your CI's secrets: it is not shown again. Only its first characters are kept to recognise it by."
        />
      )}
      <p role="status" className="status">
        {said ||
          (count === undefined
            ? ''
            : count === 0
              ? 'You have no API key yet.'
              : `${count} key${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`)}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the audit service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="API keys">
          <table>
            <caption>Your API keys, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((k) => (
                <tr key={k.id}>
                  <th scope="row" className="untrusted">
                    {k.name || 'No name'}
                  </th>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{whenOrNever(k.createdAt)}</td>
                  <td>{k.revokedAt ? `Revoked ${whenOrNever(k.revokedAt)}` : 'Active'}</td>
                  <td className="actions">
                    {!k.revokedAt && (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Revoke ${nameOf(k)}`}
                        onClick={() => setRevoking(k)}
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
          title={`Revoke ${nameOf(revoking)}?`}
          confirm="Revoke"
          busy={revoke.isPending}
          error={revoke.error ? messageOf(revoke.error) : undefined}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => {
            setRevoking(undefined);
            revoke.reset();
          }}
          fallback={() => heading.current}
        >
          <p>CI jobs using this key are refused from now on. This cannot be undone: make a new key to replace it.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
