import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { FormDialog } from '../../app/ModalDialog.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi, type ApiApplication } from '../api.ts';
import type { ApiRotation, ApiSecret } from './types.ts';

const GRACE: { value: string; label: string }[] = [
  { value: '86400', label: 'Keep working for a day, then stop' },
  { value: '3600', label: 'Keep working for an hour, then stop' },
  { value: '604800', label: 'Keep working for 7 days, then stop' },
  { value: '0', label: 'Stop now' },
  { value: 'keep', label: 'Keep working until revoked' },
];

function statusOf(s: ApiSecret): string {
  if (s.revoked) return `revoked${s.revoked_reason ? ` (${s.revoked_reason})` : ''} ${whenOrNever(s.revoked_at)}`;
  if (s.expires_at && Date.parse(s.expires_at) <= Date.now()) return `expired ${whenOrNever(s.expires_at)}`;
  return s.expires_at ? `active, expires ${whenOrNever(s.expires_at)}` : 'active';
}
const live = (s: ApiSecret) => !s.revoked && (!s.expires_at || Date.parse(s.expires_at) > Date.now());

/**
 * A confidential app's client secrets: each by its first characters (identity keeps only a fingerprint), with its last
 * use. Rotating makes a new one, shown once, and retires the others now, after a grace period, or never; revoking one
 * asks why. Both are asked in a dialog.
 */
export function SecretsPanel({ app }: { app: ApiApplication }) {
  const client = useQueryClient();
  const key = [...keys.identity.application(app.id), 'secrets'];
  const pages = useCursorPages<ApiSecret>(key, `/applications/${app.id}/secrets`, {}, 25, identityApi.get);
  const [message, setMessage] = useState('');
  const [rotating, setRotating] = useState(false);
  const [grace, setGrace] = useState('86400');
  const [revoking, setRevoking] = useState<ApiSecret>();
  const [reason, setReason] = useState('');
  const [fresh, setFresh] = useState<string>();
  const changed = () => client.invalidateQueries({ queryKey: key });

  const rotate = useMutation({
    mutationFn: () =>
      identityApi.call<ApiRotation>('POST', `/applications/${app.id}/secrets/rotate`, {
        body: grace === 'keep' ? {} : { previous_expire_in: Number(grace) },
      }),
    onSuccess: (r) => {
      setRotating(false);
      setFresh(r.secret.client_secret);
      const n = r.previous.length;
      setMessage(
        n === 0
          ? 'A new secret is made.'
          : grace === '0'
            ? `A new secret is made; the ${n} before it no longer work.`
            : grace === 'keep'
              ? `A new secret is made; the ${n} before it keep working until revoked.`
              : `A new secret is made; the ${n} before it stop ${whenOrNever(r.previous[0]!.expires_at)}.`,
      );
      return changed();
    },
  });
  const revoke = useMutation({
    mutationFn: (s: ApiSecret) =>
      identityApi.call<ApiSecret>('POST', `/applications/${app.id}/secrets/${s.id}/revoke`, {
        body: { reason: reason.trim() },
      }),
    onSuccess: (s) => {
      setRevoking(undefined);
      setMessage(`The secret ${s.secret_prefix}… is revoked: it no longer works.`);
      return changed();
    },
  });

  return (
    <section className="screen-section" aria-labelledby="app-secrets">
      <h2 id="app-secrets">Client secrets</h2>
      <p className="hint">
        Identity keeps only each secret's fingerprint and first characters: a secret is shown once, when it is made.
      </p>
      <p role="status" className="status">
        {message}
      </p>
      {fresh && (
        <SecretOnce
          title="The new client secret, shown this once"
          label={`the new client secret of ${app.name}`}
          value={fresh}
          note="Copy it now into the app's configuration: it cannot be shown again."
        />
      )}
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      <button
        type="button"
        onClick={() => {
          rotate.reset();
          setFresh(undefined);
          setMessage('');
          setRotating(true);
        }}
      >
        Rotate the secret
      </button>
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Client secrets">
          <table>
            <caption>Client secrets of {app.name}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Secret</th>
                <th scope="col">Made</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    <code>{s.secret_prefix}…</code>
                  </th>
                  <td>{whenOrNever(s.created_at)}</td>
                  <td>
                    {whenOrNever(s.last_used_at)}
                    {s.last_used_ip ? ` from ${s.last_used_ip}` : ''}
                  </td>
                  <td>{statusOf(s)}</td>
                  <td className="actions">
                    {live(s) && (
                      <button
                        type="button"
                        className="danger small"
                        aria-label={`Revoke the secret ${s.secret_prefix}…`}
                        onClick={() => {
                          revoke.reset();
                          setReason('');
                          setMessage('');
                          setRevoking(s);
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
      <Pager pages={pages} label="Client secrets" />
      {rotating && (
        <FormDialog
          title={`Rotate the secret of ${app.name}`}
          confirm="Make a new secret"
          busy={rotate.isPending}
          error={rotate.error ? messageOf(rotate.error, 'the identity service could not be reached') : undefined}
          onConfirm={() => rotate.mutate()}
          onClose={() => setRotating(false)}
        >
          <p>A new secret is made and shown once. Meanwhile, the secrets the app has now:</p>
          <fieldset className="choices">
            <legend>The current secrets</legend>
            {GRACE.map((g) => (
              <label key={g.value} className="check">
                <input
                  type="radio"
                  name="grace"
                  value={g.value}
                  checked={grace === g.value}
                  data-autofocus={grace === g.value ? '' : undefined}
                  onChange={() => setGrace(g.value)}
                />
                {g.label}
              </label>
            ))}
          </fieldset>
        </FormDialog>
      )}
      {revoking !== undefined && (
        <FormDialog
          title={`Revoke the secret ${revoking?.secret_prefix ?? ''}…?`}
          confirm="Revoke"
          danger
          busy={revoke.isPending}
          error={revoke.error ? messageOf(revoke.error, 'the identity service could not be reached') : undefined}
          onConfirm={() => revoking && revoke.mutate(revoking)}
          onClose={() => setRevoking(undefined)}
        >
          <p>The app can no longer authenticate with it, at once.</p>
          <label htmlFor="revoke-reason">Why</label>
          <input
            id="revoke-reason"
            required
            maxLength={500}
            value={reason}
            data-autofocus=""
            aria-describedby="revoke-reason-hint"
            onChange={(e) => setReason(e.target.value)}
          />
          <p id="revoke-reason-hint" className="hint">
            Kept with the secret: “leaked in a log”, “rotated”.
          </p>
        </FormDialog>
      )}
    </section>
  );
}
