import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import type { ApiEnterpriseSso, ApiOrganization } from './api.ts';

/** Domains as typed: one a line, or separated by commas or spaces. */
const domainsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/**
 * An organization's enterprise SSO: the OpenID Connect IdP that signs in the people at its email domains (identity's
 * "Enterprise SSO per organization"). The client secret is write-only: identity never answers it, so the field stays
 * empty and, left empty, keeps the one set.
 */
export function EnterpriseSsoPanel({ org }: { org: ApiOrganization }) {
  const client = useQueryClient();
  const path = `/organizations/${encodeURIComponent(org.id)}/enterprise-sso`;
  const sso = useQuery({
    queryKey: keys.organizations.enterpriseSso(org.id),
    // No connector is an answer, not a failure.
    queryFn: async ({ signal }) => {
      try {
        return await identityApi.get<ApiEnterpriseSso>(path, signal);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [said, setSaid] = useState('');
  const [removing, setRemoving] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const c = sso.data;
  // The form starts from what identity holds, and again after each change.
  useEffect(() => {
    setIssuer(c?.issuer ?? '');
    setClientId(c?.client_id ?? '');
    setDomains(c?.domains.join('\n') ?? '');
  }, [c]);

  const save = useMutation({
    mutationFn: () =>
      identityApi.call<ApiEnterpriseSso>('PUT', path, {
        body: {
          issuer: issuer.trim(),
          client_id: clientId.trim(),
          ...(secret ? { client_secret: secret } : {}),
          domains: domainsOf(domains),
        },
      }),
    onMutate: () => setSaid(''),
    onSuccess: (saved) => {
      setSecret('');
      client.setQueryData(keys.organizations.enterpriseSso(org.id), saved);
      setSaid(`Saved: people at ${saved.domains.join(', ')} now sign in through ${saved.issuer}.`);
    },
  });
  const remove = useMutation({
    mutationFn: () => identityApi.call<null>('DELETE', path),
    onSuccess: () => {
      setRemoving(false);
      client.setQueryData(keys.organizations.enterpriseSso(org.id), null);
      setSaid('Enterprise SSO is removed: those addresses sign in with passwords again.');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <section aria-labelledby="sso-title">
      <h2 id="sso-title" ref={heading} tabIndex={-1}>
        Enterprise SSO
      </h2>
      <p className="hint">
        People whose email is at one of these domains sign in through the organization's own OpenID Connect IdP, and are
        made members when they first do. Platform admins keep their password. Register the IdP's client with the
        redirect URI <code>{`<identity issuer>/upstream/sso-${org.id}/callback`}</code>.
      </p>
      {sso.error && (
        <p role="alert" className="error">
          {messageOf(sso.error, 'the enterprise SSO settings could not be loaded')}
        </p>
      )}
      {sso.data !== undefined && (
        <form className="form" onSubmit={submit} aria-label="Enterprise SSO connector">
          <label htmlFor="sso-issuer">Issuer URL</label>
          <input
            id="sso-issuer"
            type="url"
            required
            maxLength={2000}
            autoComplete="off"
            value={issuer}
            onChange={(e) => setIssuer(e.target.value)}
          />
          <label htmlFor="sso-client">Client ID</label>
          <input
            id="sso-client"
            required
            maxLength={500}
            autoComplete="off"
            value={clientId}
            onChange={(e) => setClientId(e.target.value)}
          />
          <label htmlFor="sso-secret">Client secret</label>
          <input
            id="sso-secret"
            type="password"
            maxLength={2000}
            autoComplete="new-password"
            aria-describedby="sso-secret-hint"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
          <p className="hint" id="sso-secret-hint">
            {c?.has_client_secret
              ? 'A secret is set and is never shown. Leave this empty to keep it.'
              : 'None set. Leave empty for a public client (PKCE only).'}
          </p>
          <label htmlFor="sso-domains">Email domains</label>
          <textarea
            id="sso-domains"
            required
            rows={3}
            aria-describedby="sso-domains-hint"
            value={domains}
            onChange={(e) => setDomains(e.target.value)}
          />
          <p className="hint" id="sso-domains-hint">
            One a line. Only domains you have verified belong to {org.name}; public mail services are refused.
          </p>
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save enterprise SSO
            </button>
            {c && (
              <button type="button" className="danger" onClick={() => setRemoving(true)}>
                Remove enterprise SSO
              </button>
            )}
          </div>
        </form>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      {removing && (
        <ConfirmDialog
          title="Remove enterprise SSO?"
          confirm="Remove"
          busy={remove.isPending}
          // The Remove button is gone once it worked: the focus goes to the section's heading.
          fallback={() => heading.current}
          error={remove.error ? messageOf(remove.error) : undefined}
          onConfirm={() => remove.mutate()}
          onClose={() => {
            setRemoving(false);
            remove.reset();
          }}
        >
          <p>People at {c?.domains.join(', ')} will sign in with passwords here again, if they have one.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
