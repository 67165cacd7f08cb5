import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import type { ApiScimConnection, ApiScimToken } from './api.ts';

type Asked = { kind: 'rotate' | 'revoke'; connection: ApiScimConnection };

const unreachable = 'the identity service could not be reached';

/**
 * Identity → Provisioning: the SCIM connections through which an enterprise directory (Okta, Entra ID) creates, updates
 * and deactivates people. Adding one shows its token once, with the base URL to give the directory; a new token
 * (the old one stops) and revoking are asked in a dialog. Identity keeps only each token's first characters.
 */
export default function ProvisioningScreen() {
  useScreen('Provisioning (SCIM)');
  const client = useQueryClient();
  const pages = useCursorPages<ApiScimConnection>(keys.scimConnections, '/scim-connections', {}, 25, identityApi.get);
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const [fresh, setFresh] = useState<ApiScimToken>();
  const [asked, setAsked] = useState<Asked>();
  const changed = () => client.invalidateQueries({ queryKey: keys.scimConnections });

  const create = useMutation({
    mutationFn: (n: string) => identityApi.call<ApiScimToken>('POST', '/scim-connections', { body: { name: n } }),
    onSuccess: (r) => {
      setName('');
      setFresh(r);
      setMessage(`The connection ${r.connection.name} is made.`);
      return changed();
    },
  });
  const act = useMutation({
    mutationFn: (a: Asked): Promise<ApiScimToken | ApiScimConnection> =>
      a.kind === 'rotate'
        ? identityApi.call<ApiScimToken>('POST', `/scim-connections/${a.connection.id}/rotate`)
        : identityApi.call<ApiScimConnection>('POST', `/scim-connections/${a.connection.id}/revoke`),
    onSuccess: (r, a) => {
      setAsked(undefined);
      if (a.kind === 'rotate') {
        if ('token' in r) setFresh(r);
        setMessage(`${a.connection.name} has a new token; the one before it no longer works.`);
      } else setMessage(`The token of ${a.connection.name} is revoked: the directory can no longer provision.`);
      return changed();
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFresh(undefined);
    setMessage('');
    if (name.trim()) create.mutate(name.trim());
  };
  const base = pages.items?.[0]?.base_url ?? fresh?.connection.base_url;

  return (
    <>
      <h1>Provisioning (SCIM)</h1>
      <p className="description">
        An enterprise directory such as Okta or Microsoft Entra ID can create, update and deactivate people here, and
        make its groups organizations, over SCIM 2.0. Give it the base URL and a connection's token; it sees only the
        people and groups it provisioned.
        {base && (
          <>
            {' '}
            Base URL: <code>{base}</code>
          </>
        )}
      </p>
      <form className="form" onSubmit={submit} aria-labelledby="scim-add">
        <h2 id="scim-add">Add a connection</h2>
        <div className="field">
          <label htmlFor="scim-name">Directory</label>
          <input
            id="scim-name"
            required
            maxLength={200}
            autoComplete="off"
            aria-describedby="scim-name-hint"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <span id="scim-name-hint" className="hint">
            A name to tell it by: “Okta (Acme)”.
          </span>
        </div>
        <button type="submit" disabled={create.isPending}>
          Add connection
        </button>
        {create.error && (
          <p role="alert" className="error">
            {messageOf(create.error, unreachable)}
          </p>
        )}
      </form>
      <p role="status" className="status">
        {message}
      </p>
      {fresh && (
        <SecretOnce
          title={`The token of ${fresh.connection.name}, shown this once`}
          label={`the SCIM token of ${fresh.connection.name}`}
          value={fresh.token}
          note={`Copy it now into the directory's provisioning settings as the bearer token, with the base URL ${fresh.connection.base_url}: it cannot be shown again.`}
        />
      )}
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, unreachable)}
        </p>
      )}
      {pages.items?.length === 0 && <p className="hint">No connection yet.</p>}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="SCIM connections">
          <table>
            <caption>SCIM connections</caption>
            <thead>
              <tr>
                <th scope="col">Directory</th>
                <th scope="col">Token</th>
                <th scope="col">Last used</th>
                <th scope="col">People</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>
                    <code>{c.token_prefix}…</code>
                    <span className="hint block">made {whenOrNever(c.token_created_at)}</span>
                  </td>
                  <td>{whenOrNever(c.last_used_at)}</td>
                  <td>{c.people}</td>
                  <td>{c.revoked_at ? `revoked ${whenOrNever(c.revoked_at)}` : 'live'}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="small"
                      aria-label={`New token for ${c.name}`}
                      onClick={() => {
                        act.reset();
                        setAsked({ kind: 'rotate', connection: c });
                      }}
                    >
                      New token
                    </button>
                    {!c.revoked_at && (
                      <button
                        type="button"
                        className="danger small"
                        aria-label={`Revoke the token of ${c.name}`}
                        onClick={() => {
                          act.reset();
                          setAsked({ kind: 'revoke', connection: c });
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
      <Pager pages={pages} label="SCIM connections" />
      {asked && (
        <ConfirmDialog
          title={
            asked.kind === 'rotate'
              ? `A new token for ${asked.connection.name}?`
              : `Revoke the token of ${asked.connection.name}?`
          }
          confirm={asked.kind === 'rotate' ? 'Make a new token' : 'Revoke'}
          busy={act.isPending}
          error={act.error ? messageOf(act.error, unreachable) : undefined}
          onConfirm={() => {
            setFresh(undefined);
            act.mutate(asked);
          }}
          onClose={() => setAsked(undefined)}
        >
          {asked.kind === 'rotate' ? (
            <p>
              A new token is made and shown once; the one the directory has stops working at once, so provisioning fails
              until it is given the new one.
            </p>
          ) : (
            <p>
              The directory can no longer provision: its next request is refused. The people and groups it provisioned
              stay as they are. A new token opens the connection again.
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
