import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { FormDialog } from '../../app/ModalDialog.tsx';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import { personListQuery } from './lists.ts';
import type { ApiCredential, ApiLinkedAccount, ApiPasswordLink, ApiPerson } from './types.ts';

type Asked = 'deactivate' | 'sign-out' | 'reset';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const liveOf = (c: ApiCredential) => c.active && !c.revoked && (!c.expires_at || Date.parse(c.expires_at) > Date.now());

/**
 * What an admin does to a person's account: deactivate (asked in a dialog) or reactivate them, sign them out everywhere
 * and reset their second factors (each asked in a dialog), and give someone with no way to sign in a password link,
 * shown once. Each answer is said in the section's status line; a refusal in an alert.
 */
export function PersonActions({ person }: { person: ApiPerson }) {
  const client = useQueryClient();
  const credentials = useQuery(personListQuery<ApiCredential>(person.id, 'credentials'));
  const linked = useQuery(personListQuery<ApiLinkedAccount>(person.id, 'external-identities'));
  const [asking, setAsking] = useState<Asked>();
  const [message, setMessage] = useState('');
  const [link, setLink] = useState<ApiPasswordLink>();
  const name = person.display_name;
  const act = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => {
      setMessage('');
      setLink(undefined);
    },
    onSuccess: (said) => {
      setAsking(undefined);
      setMessage(said);
      void client.invalidateQueries({ queryKey: keys.identity.people() });
    },
  });
  const run = (what: () => Promise<string>) => act.mutate(what);
  const active = (to: boolean) =>
    run(async () => {
      await identityApi.call('POST', `/principals/${person.id}/${to ? 'activate' : 'deactivate'}`);
      return to
        ? `${name} is active again: they can sign in.`
        : `${name} is deactivated: signed out everywhere, and they cannot sign in.`;
    });
  const signOut = () =>
    run(async () => {
      const r = await identityApi.call<{ sessions_ended: number; tokens_revoked: number }>(
        'DELETE',
        `/principals/${person.id}/sessions`,
      );
      return `${name} is signed out everywhere: ${plural(r.sessions_ended, 'session')} ended, ${plural(r.tokens_revoked, 'token')} revoked.`;
    });
  const reset = () =>
    run(async () => {
      const r = await identityApi.call<{ totp_revoked: number; passkeys_revoked: number }>(
        'POST',
        `/principals/${person.id}/second-factors/reset`,
      );
      return `The second factors of ${name} are reset: ${plural(r.totp_revoked, 'authenticator app')} and ${plural(r.passkeys_revoked, 'passkey')} revoked.`;
    });
  const issueLink = () =>
    run(async () => {
      const made = await identityApi.call<ApiPasswordLink>('POST', `/principals/${person.id}/password-link`);
      setLink(made);
      return `A password link for ${name}, valid until ${whenOrNever(made.expires_at)}: links sent before no longer work.`;
    });

  const signsIn =
    (credentials.data?.items ?? []).some((c) => (c.type === 'password' || c.type === 'webauthn') && liveOf(c)) ||
    (linked.data?.items.length ?? 0) > 0;
  const known = credentials.isSuccess && linked.isSuccess;
  const failed = act.error ? messageOf(act.error, 'the identity service could not be reached') : undefined;
  const open = (what: Asked) => {
    act.reset();
    setAsking(what);
  };

  return (
    <section className="screen-section" aria-labelledby="person-account">
      <h2 id="person-account">Account</h2>
      <p role="status" className="status typed">
        {message}
      </p>
      {failed && !asking && (
        <p role="alert" className="error">
          {failed}
        </p>
      )}
      {link && (
        <SecretOnce
          title="The password link, shown this once"
          label={`the password link for ${name}`}
          value={link.link}
          note={`Send it to ${link.email}: it opens a page where they choose a password, once. Identity keeps only its fingerprint.`}
        />
      )}
      <div className="actions">
        {person.active ? (
          <>
            <button type="button" className="secondary" onClick={() => open('sign-out')}>
              Sign out everywhere
            </button>
            <button type="button" className="secondary" onClick={() => open('reset')}>
              Reset second factors
            </button>
            {known && !signsIn && (
              <button type="button" className="secondary" disabled={act.isPending} onClick={issueLink}>
                Issue a password link
              </button>
            )}
            <button type="button" className="danger" onClick={() => open('deactivate')}>
              Deactivate
            </button>
          </>
        ) : (
          <button type="button" className="secondary" disabled={act.isPending} onClick={() => active(true)}>
            Reactivate
          </button>
        )}
      </div>
      {person.active && known && signsIn && (
        <p className="hint">
          They have a way to sign in (a password, a passkey or a linked account): a password link is only for someone
          who has none yet.
        </p>
      )}
      {asking === 'deactivate' && (
        <FormDialog
          title={`Deactivate ${name}?`}
          confirm="Deactivate"
          danger
          busy={act.isPending}
          error={failed}
          onConfirm={() => active(false)}
          onClose={() => setAsking(undefined)}
        >
          <p>
            They are signed out everywhere at once, their tokens stop counting, and they cannot sign in until
            reactivated.
          </p>
        </FormDialog>
      )}
      {asking === 'sign-out' && (
        <FormDialog
          title={`Sign ${name} out everywhere?`}
          confirm="Sign out everywhere"
          danger
          busy={act.isPending}
          error={failed}
          onConfirm={signOut}
          onClose={() => setAsking(undefined)}
        >
          <p>
            Every browser session ends and every token apps hold for them is revoked: each app asks them to sign in
            again.
          </p>
        </FormDialog>
      )}
      {asking === 'reset' && (
        <FormDialog
          title={`Reset the second factors of ${name}?`}
          confirm="Reset second factors"
          danger
          busy={act.isPending}
          error={failed}
          onConfirm={reset}
          onClose={() => setAsking(undefined)}
        >
          <p>
            Their authenticator app (with its recovery codes) and their passkeys are revoked: they sign in with their
            password alone, and may set up new ones. For someone who lost them.
          </p>
        </FormDialog>
      )}
    </section>
  );
}
