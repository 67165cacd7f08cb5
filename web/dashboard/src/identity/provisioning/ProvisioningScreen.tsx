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

type Asked = { kind: 'rotate' | 'revoke' | 'adopt' | 'stop-adopting'; connection: ApiScimConnection };

/** What a dialog asks, its button, and what it says of the change. */
const ASKED: Record<Asked['kind'], { title: (name: string) => string; confirm: string }> = {
  rotate: { title: (n) => `A new token for ${n}?`, confirm: 'Make a new token' },
  revoke: { title: (n) => `Revoke the token of ${n}?`, confirm: 'Revoke' },
  adopt: { title: (n) => `Let ${n} adopt people who already have an account?`, confirm: 'Allow adoption' },
  'stop-adopting': { title: (n) => `Stop ${n} adopting people?`, confirm: 'Stop adoption' },
};

/** The risk of adoption, said where it is turned on. */
const ADOPT_RISK =
  'The directory can then change and deactivate each person it adopts. Platform admins, deactivated people and other ' +
  'connections’ people are never adopted. Use it for the first sync, then turn it off.';

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
  const [adoptNew, setAdoptNew] = useState(false);
  const [message, setMessage] = useState('');
  const [fresh, setFresh] = useState<ApiScimToken>();
  const [asked, setAsked] = useState<Asked>();
  const changed = () => client.invalidateQueries({ queryKey: keys.scimConnections });

  const create = useMutation({
    mutationFn: (b: { name: string; adopt_existing: boolean }) =>
      identityApi.call<ApiScimToken>('POST', '/scim-connections', { body: b }),
    onSuccess: (r) => {
      setName('');
      setAdoptNew(false);
      setFresh(r);
      setMessage(`The connection ${r.connection.name} is made.`);
      return changed();
    },
  });
  const act = useMutation({
    mutationFn: (a: Asked): Promise<ApiScimToken | ApiScimConnection> => {
      const path = `/scim-connections/${a.connection.id}`;
      if (a.kind === 'rotate') return identityApi.call<ApiScimToken>('POST', `${path}/rotate`);
      if (a.kind === 'revoke') return identityApi.call<ApiScimConnection>('POST', `${path}/revoke`);
      return identityApi.call<ApiScimConnection>('PATCH', path, { body: { adopt_existing: a.kind === 'adopt' } });
    },
    onSuccess: (r, a) => {
      setAsked(undefined);
      const n = a.connection.name;
      if (a.kind === 'rotate') {
        if ('token' in r) setFresh(r);
        setMessage(`${n} has a new token; the one before it no longer works.`);
      } else if (a.kind === 'revoke')
        setMessage(`The token of ${n} is revoked: the directory can no longer provision.`);
      else if (a.kind === 'adopt') setMessage(`${n} adopts people who already have an account.`);
      else setMessage(`${n} no longer adopts people; those it adopted stay its own.`);
      return changed();
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFresh(undefined);
    setMessage('');
    if (name.trim()) create.mutate({ name: name.trim(), adopt_existing: adoptNew });
  };
  const base = pages.items?.[0]?.base_url ?? fresh?.connection.base_url;

  return (
    <>
      <h1>Provisioning (SCIM)</h1>
      <p className="description">
        An enterprise directory such as Okta or Microsoft Entra ID can create, update and deactivate people here, and
        make its groups organizations, over SCIM 2.0. Give it the base URL and a connection's token; it sees only the
        people and groups it provisioned, and those it adopted when allowed to.
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
        <div className="field">
          <label className="check">
            <input
              type="checkbox"
              checked={adoptNew}
              aria-describedby="scim-adopt-hint"
              onChange={(e) => setAdoptNew(e.target.checked)}
            />
            Adopt people who already have an account
          </label>
          <span id="scim-adopt-hint" className="hint">
            For people who signed up here before the directory was connected: the directory’s push of their email links
            them to it instead of being refused. {ADOPT_RISK}
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
                <th scope="col">Adopts existing people</th>
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
                  <td>{c.adopt_existing ? 'yes' : 'no'}</td>
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
                    <button
                      type="button"
                      className="small"
                      aria-label={`${c.adopt_existing ? 'Stop adoption' : 'Allow adoption'} for ${c.name}`}
                      onClick={() => {
                        act.reset();
                        setAsked({ kind: c.adopt_existing ? 'stop-adopting' : 'adopt', connection: c });
                      }}
                    >
                      {c.adopt_existing ? 'Stop adoption' : 'Allow adoption'}
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
          title={ASKED[asked.kind].title(asked.connection.name)}
          confirm={ASKED[asked.kind].confirm}
          busy={act.isPending}
          error={act.error ? messageOf(act.error, unreachable) : undefined}
          onConfirm={() => {
            setFresh(undefined);
            act.mutate(asked);
          }}
          onClose={() => setAsked(undefined)}
        >
          {asked.kind === 'rotate' && (
            <p>
              A new token is made and shown once; the one the directory has stops working at once, so provisioning fails
              until it is given the new one.
            </p>
          )}
          {asked.kind === 'revoke' && (
            <p>
              The directory can no longer provision: its next request is refused. The people and groups it provisioned
              stay as they are. A new token opens the connection again.
            </p>
          )}
          {asked.kind === 'adopt' && (
            <p>
              When the directory pushes an email someone already signs in with, that person becomes the directory’s
              instead of being refused. {ADOPT_RISK}
            </p>
          )}
          {asked.kind === 'stop-adopting' && (
            <p>
              An email someone already signs in with is refused to the directory again. The people it adopted stay its
              own.
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
