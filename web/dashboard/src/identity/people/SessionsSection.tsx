import { useMutation, useQueryClient } from '@tanstack/react-query';
import { providerName } from '../../app/kind-names.ts';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import { PersonList } from './PersonList.tsx';
import type { ApiSession } from './types.ts';

/**
 * A person's live sign-in sessions at identity, one a browser, newest first; each can be ended (that browser must sign
 * in again). Signing them out of every one, with their tokens, is the Account section's.
 */
export function SessionsSection({ id }: { id: string }) {
  const client = useQueryClient();
  const [status, setStatus] = useState('');
  const end = useMutation({
    mutationFn: (s: ApiSession) => identityApi.call('DELETE', `/principals/${id}/sessions/${s.id}`),
    onMutate: () => setStatus(''),
    onSuccess: (_, s) => {
      setStatus(`The session started ${whenOrNever(s.created_at)} is ended: that browser must sign in again.`);
      return client.invalidateQueries({ queryKey: [...keys.identity.person(id), 'sessions'] });
    },
  });
  return (
    <>
      <PersonList<ApiSession>
        id={id}
        what="sessions"
        title="Sessions"
        caption="Browsers signed in at identity, newest first"
        none="No browser is signed in."
        columns={['Started', 'Browser', 'Address', 'Signed in with', 'Ends', 'Actions']}
        status={status}
        row={(s) => (
          <tr key={s.id}>
            <th scope="row">{whenOrNever(s.created_at)}</th>
            <td className="typed">{s.user_agent ?? 'unknown'}</td>
            <td>{s.client_ip ?? 'unknown'}</td>
            <td className="typed">
              {s.provider ? providerName(s.provider) : "identity's own sign-in"}
              {s.second_factor ? ' and a second factor' : ''}
            </td>
            <td>{whenOrNever(s.expires_at)}</td>
            <td className="actions">
              <button
                type="button"
                className="danger small"
                disabled={end.isPending}
                aria-label={`End the session started ${whenOrNever(s.created_at)} from ${s.client_ip ?? 'an unknown address'}`}
                onClick={() => end.mutate(s)}
              >
                End
              </button>
            </td>
          </tr>
        )}
      />
      {end.error && (
        <p role="alert" className="error">
          {messageOf(end.error, 'the identity service could not be reached')}
        </p>
      )}
    </>
  );
}
