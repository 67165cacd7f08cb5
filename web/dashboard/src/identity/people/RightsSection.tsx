import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiPerson, ApiRight } from './types.ts';

const TITLE: Record<ApiRight['name'], string> = { identity: 'Identity', audits: 'Audits', events: 'Events' };

/**
 * The sections of the console a person may open: each right is a scope of identity they hold. Saving sets exactly the
 * rights ticked (recorded at identity with who did it); identity refuses to take the Identity right from the last
 * person who has it, and says so here.
 */
export function RightsSection({ person }: { person: ApiPerson }) {
  const client = useQueryClient();
  const key = [...keys.identity.person(person.id), 'console-rights'];
  const rights = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) =>
      (await identityApi.get<{ rights: ApiRight[] }>(`/principals/${person.id}/console-rights`, signal)).rights,
  });
  const [wanted, setWanted] = useState<Set<string>>();
  const [message, setMessage] = useState('');
  const shown = wanted ?? new Set(rights.data?.filter((r) => r.held).map((r) => r.name));
  const save = useMutation({
    mutationFn: (names: string[]) =>
      identityApi.call<{ rights: ApiRight[] }>('PUT', `/principals/${person.id}/console-rights`, {
        body: { rights: names },
      }),
    onSuccess: ({ rights: after }) => {
      client.setQueryData(key, after);
      setWanted(undefined);
      const held = after.filter((r) => r.held).map((r) => TITLE[r.name]);
      setMessage(
        held.length
          ? `${person.display_name} now holds: ${held.join(', ')}.`
          : `${person.display_name} now holds no right in the console.`,
      );
      return client.invalidateQueries({ queryKey: keys.identity.person(person.id), exact: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMessage('');
    save.mutate((rights.data ?? []).filter((r) => shown.has(r.name)).map((r) => r.name));
  };
  return (
    <section className="screen-section" aria-labelledby="person-rights">
      <h2 id="person-rights">Console rights</h2>
      <p role="status" className="status typed">
        {message}
      </p>
      {rights.error && (
        <p role="alert" className="error">
          {messageOf(rights.error, 'the identity service could not be reached')}
        </p>
      )}
      {rights.data && (
        <form onSubmit={submit} className="form">
          <fieldset className="choices">
            <legend className="typed">Sections of the console {person.display_name} may open</legend>
            {rights.data.map((r) => (
              <div key={r.name}>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={shown.has(r.name)}
                    aria-describedby={`right-${r.name}-hint`}
                    onChange={(e) => {
                      const next = new Set(shown);
                      if (e.target.checked) next.add(r.name);
                      else next.delete(r.name);
                      setWanted(next);
                    }}
                  />
                  {TITLE[r.name]}
                </label>
                <p id={`right-${r.name}-hint`} className="hint">
                  {r.description} (scope <code>{r.scope}</code>)
                </p>
              </div>
            ))}
          </fieldset>
          {save.error && (
            <p role="alert" className="error">
              {messageOf(save.error, 'the identity service could not be reached')}
            </p>
          )}
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save rights
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
