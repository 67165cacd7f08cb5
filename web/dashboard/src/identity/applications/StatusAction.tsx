import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormDialog } from '../../app/ModalDialog.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi, type ApiApplication } from '../api.ts';

/** Deactivate (asked in a dialog: its tokens stop at once) or reactivate an app; the answer is said in `onDone`. */
export function StatusAction({ app, onDone }: { app: ApiApplication; onDone: (message: string) => void }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const change = useMutation({
    mutationFn: (active: boolean) =>
      identityApi.call<ApiApplication>('POST', `/applications/${app.id}/${active ? 'activate' : 'deactivate'}`),
    onSuccess: (updated) => {
      setAsking(false);
      client.setQueryData(keys.identity.application(app.id), updated);
      void client.invalidateQueries({ queryKey: keys.identity.applications() });
      onDone(
        updated.active
          ? `${updated.name} is active again: it can get tokens.`
          : `${updated.name} is deactivated: it gets no tokens, and those it had no longer count.`,
      );
    },
  });
  if (!app.active)
    return (
      <>
        <button
          type="button"
          className="secondary typed"
          disabled={change.isPending}
          onClick={() => change.mutate(true)}
        >
          Reactivate {app.name}
        </button>
        {change.error && (
          <p role="alert" className="error">
            {messageOf(change.error, 'the identity service could not be reached')}
          </p>
        )}
      </>
    );
  return (
    <>
      <button
        type="button"
        className="danger typed"
        onClick={() => {
          change.reset();
          setAsking(true);
        }}
      >
        Deactivate {app.name}
      </button>
      {asking && (
        <FormDialog
          title={`Deactivate ${app.name}?`}
          confirm="Deactivate"
          danger
          busy={change.isPending}
          error={change.error ? messageOf(change.error, 'the identity service could not be reached') : undefined}
          onConfirm={() => change.mutate(false)}
          onClose={() => setAsking(false)}
        >
          <p>
            It gets no new tokens, and the tokens it holds stop counting at once: people signed in through it are signed
            out of it. It can be reactivated later.
          </p>
        </FormDialog>
      )}
    </>
  );
}
