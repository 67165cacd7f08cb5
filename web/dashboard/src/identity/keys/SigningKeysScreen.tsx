import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiRotation, ApiSigningKey, ApiSigningKeys } from './api.ts';

/** The newest keys: a rotation a day for half a year. Older ones are long out of the JWKS. */
const SHOWN = 200;

const duration = (seconds: number) =>
  seconds < 120
    ? `${seconds} seconds`
    : seconds < 7200
      ? `${Math.round(seconds / 60)} minutes`
      : `${Math.round(seconds / 3600)} hours`;

function stateText(k: ApiSigningKey): string {
  switch (k.state) {
    case 'signing':
      return 'Signs ID tokens now';
    case 'next':
      return `Published; signs from ${whenOrNever(k.signs_from)}`;
    case 'retired':
      return `Retired ${whenOrNever(k.retired_at)}; published for verification`;
    default:
      return 'Expired: out of the JWKS';
  }
}

/**
 * Identity's signing keys: which one signs ID tokens, which are published in the JWKS and until when; rotating adds a
 * key that is published at once and signs once every instance serves it, the current one kept for verification.
 */
export default function SigningKeysScreen() {
  useScreen('Signing keys');
  const client = useQueryClient();
  const list = useQuery({
    queryKey: keys.signingKeys,
    queryFn: ({ signal }) => identityApi.get<ApiSigningKeys>(`/signing-keys?limit=${SHOWN}`, signal),
  });
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState('');
  const rotate = useMutation({
    mutationFn: () => identityApi.call<ApiRotation>('POST', '/signing-keys/rotate'),
    onSuccess: async (r) => {
      await client.invalidateQueries({ queryKey: keys.signingKeys });
      setConfirming(false);
      setSaid(`New key ${r.kid} is published; it signs ID tokens from ${whenOrNever(r.signs_from)}.`);
    },
  });
  const wait = list.data ? duration(list.data.propagation_seconds) : 'a moment';

  return (
    <>
      <h1>Signing keys</h1>
      <p className="description">
        Identity signs ID tokens with one key at a time and publishes the public half of every key still needed to
        verify them.
        {list.data && (
          <>
            {' '}
            Published keys: <SafeLink href={list.data.jwks_uri} />
          </>
        )}
      </p>
      <div className="actions">
        <button type="button" onClick={() => setConfirming(true)}>
          Rotate signing key
        </button>
      </div>
      <p role="status" className="status">
        {said ||
          (list.data
            ? `${list.data.items.filter((k) => k.published).length} published key${list.data.items.filter((k) => k.published).length === 1 ? '' : 's'}, ${list.data.items.length} in all.`
            : '')}
      </p>
      {list.error && (
        <p role="alert" className="error">
          {messageOf(list.error, 'the identity service could not be reached')}
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <WideTable label="Signing keys">
          <table>
            <caption>Signing keys, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">In the JWKS</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((k) => (
                <tr key={k.kid}>
                  <th scope="row">
                    <code>{k.kid}</code>
                  </th>
                  <td>{k.alg}</td>
                  <td>{whenOrNever(k.created_at)}</td>
                  <td>{stateText(k)}</td>
                  <td>
                    {k.published ? (k.publish_until ? `Until ${whenOrNever(k.publish_until)}` : 'Yes') : 'No'}
                    {k.published !== k.served && (
                      <span className="hint block">
                        {k.served
                          ? 'still served by this instance until it reloads'
                          : 'this instance serves it once it reloads'}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {list.data?.next && <p className="hint">Older keys, long out of the JWKS, are not listed.</p>}
      {confirming && (
        <ConfirmDialog
          title="Rotate the signing key?"
          confirm="Rotate"
          busy={rotate.isPending}
          error={rotate.error ? messageOf(rotate.error) : undefined}
          onConfirm={() => rotate.mutate()}
          onClose={() => {
            setConfirming(false);
            rotate.reset();
          }}
        >
          <p>
            A new key is published now and signs ID tokens in about {wait}, once every instance of identity serves it.
            The current key signs until then, and stays published until the ID tokens it signed have expired.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
