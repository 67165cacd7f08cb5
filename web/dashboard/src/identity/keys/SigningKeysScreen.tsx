import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiRotation, ApiSigningKey, ApiSigningKeys } from './api.ts';
import { RotateDialog, type RotationKind } from './RotateDialog.tsx';

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

/** What the status says after a rotation: when the new key signs, and for an immediate one what that may cost. */
const rotatedText = (r: ApiRotation) =>
  r.immediately
    ? `New key ${r.kid} signs ID tokens now. Apps that cached the JWKS may reject them until they fetch it again.`
    : `New key ${r.kid} is published; it signs ID tokens from ${whenOrNever(r.signs_from)}.`;

/**
 * Identity's signing keys: which one signs ID tokens, which are published in the JWKS and until when; rotating adds a
 * key that is published at once and signs once every instance serves it, the current one kept for verification, or,
 * for a compromised key, signs at once.
 */
export default function SigningKeysScreen() {
  useScreen('Signing keys');
  const client = useQueryClient();
  const list = useQuery({
    queryKey: keys.signingKeys,
    queryFn: ({ signal }) => identityApi.get<ApiSigningKeys>(`/signing-keys?limit=${SHOWN}`, signal),
  });
  const [confirming, setConfirming] = useState<RotationKind | null>(null);
  const [said, setSaid] = useState('');
  const rotate = useMutation({
    mutationFn: (kind: RotationKind) =>
      identityApi.call<ApiRotation>(
        'POST',
        '/signing-keys/rotate',
        kind === 'immediately' ? { body: { immediately: true } } : {},
      ),
    onSuccess: async (r) => {
      await client.invalidateQueries({ queryKey: keys.signingKeys });
      setConfirming(null);
      setSaid(rotatedText(r));
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
        <button type="button" onClick={() => setConfirming('staged')}>
          Rotate signing key
        </button>
        <button type="button" className="danger" onClick={() => setConfirming('immediately')}>
          Rotate immediately (key compromised)
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
        <RotateDialog
          kind={confirming}
          wait={wait}
          pending={list.data?.items.some((k) => k.state === 'next') ?? false}
          busy={rotate.isPending}
          error={rotate.error ? messageOf(rotate.error) : undefined}
          onConfirm={() => rotate.mutate(confirming)}
          onClose={() => {
            setConfirming(null);
            rotate.reset();
          }}
        />
      )}
    </>
  );
}
