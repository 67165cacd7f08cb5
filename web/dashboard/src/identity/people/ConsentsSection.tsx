import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import { PersonList } from './PersonList.tsx';
import type { ApiConsent } from './types.ts';

/**
 * The apps a person allowed (consents), with the scopes allowed; withdrawing one revokes that app's tokens for them.
 * App names are what their registrants typed: text only.
 */
export function ConsentsSection({ id }: { id: string }) {
  const client = useQueryClient();
  const [status, setStatus] = useState('');
  const withdraw = useMutation({
    mutationFn: (c: ApiConsent) => identityApi.call('DELETE', `/principals/${id}/consents/${c.app_id}`),
    onMutate: () => setStatus(''),
    onSuccess: (_, c) => {
      setStatus(`The consent to ${c.app_name} is withdrawn: its tokens for them are revoked.`);
      return client.invalidateQueries({ queryKey: [...keys.identity.person(id), 'consents'] });
    },
  });
  return (
    <>
      <PersonList<ApiConsent>
        id={id}
        what="consents"
        title="Consents"
        caption="Apps they allowed"
        none="They allowed no app."
        columns={['App', 'Scopes', 'Allowed', 'Last used', 'Status', 'Actions']}
        status={status}
        row={(c) => (
          <tr key={c.id}>
            <th scope="row" className="typed">
              {c.app_name}
            </th>
            <td>{c.scopes.join(' ') || 'none'}</td>
            <td>{whenOrNever(c.granted_at)}</td>
            <td>{whenOrNever(c.last_used_at)}</td>
            <td>{c.revoked ? `withdrawn ${whenOrNever(c.revoked_at)}` : 'allowed'}</td>
            <td className="actions">
              {!c.revoked && (
                <button
                  type="button"
                  className="danger small typed"
                  disabled={withdraw.isPending}
                  aria-label={`Withdraw the consent to ${c.app_name}`}
                  onClick={() => withdraw.mutate(c)}
                >
                  Withdraw
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {withdraw.error && (
        <p role="alert" className="error">
          {messageOf(withdraw.error, 'the identity service could not be reached')}
        </p>
      )}
    </>
  );
}
