import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi, type ApiApplication } from '../api.ts';
import { AppSettingsFields } from './AppSettingsFields.tsx';
import { bodyOf, changesOf, draftOf } from './draft.ts';
import { scopesQuery } from './queries.ts';

/**
 * An app's settings to edit (not its kind or client id): only what changed is sent, so saving an unchanged form
 * changes nothing and records nothing at identity. Identity's refusal is said under the form.
 */
export function SettingsForm({ app, onSaved }: { app: ApiApplication; onSaved: (message: string) => void }) {
  const client = useQueryClient();
  const scopes = useQuery(scopesQuery());
  const [draft, setDraft] = useState(() => draftOf(app.app_type, app));
  const save = useMutation({
    mutationFn: (changes: object) =>
      identityApi.call<ApiApplication>('PATCH', `/applications/${app.id}`, { body: changes }),
    onSuccess: (updated) => {
      client.setQueryData(keys.identity.application(app.id), updated);
      void client.invalidateQueries({ queryKey: keys.identity.applications() });
      setDraft(draftOf(updated.app_type, updated));
      onSaved(`The settings of ${updated.name} are saved.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const changes = changesOf(app, bodyOf(app.app_type, draft));
    if (Object.keys(changes).length === 0) {
      save.reset();
      onSaved('Nothing changed: there was nothing to save.');
      return;
    }
    onSaved('');
    save.mutate(changes);
  };
  return (
    <form className="form" onSubmit={submit} aria-label={`Settings of ${app.name}`}>
      <AppSettingsFields
        type={app.app_type}
        draft={draft}
        scopes={scopes.data ?? app.allowed_scopes}
        onChange={setDraft}
      />
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error, 'the identity service could not be reached')}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
      </div>
    </form>
  );
}
