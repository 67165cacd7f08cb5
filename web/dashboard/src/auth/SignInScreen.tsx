import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { get } from '../api/client.ts';
import { useScreen } from '../app/useTitle.ts';
import { keys } from '../data/keys.ts';

interface Provider {
  id: string;
  loginUrl: string;
}
const NAMES: Record<string, string> = { github: 'GitHub', google: 'Google', platform: 'the platform account' };

/** Sign-in: one button per configured provider; the provider returns here with the tokens in the fragment. */
export function SignInScreen({ notice, error }: { notice?: string | undefined; error?: string | undefined }) {
  useScreen('Sign in');
  const list = useQuery({
    queryKey: keys.providers,
    queryFn: async ({ signal }) => (await get<{ providers: Provider[] }>('/auth/providers', signal)).providers,
  });
  const providers = list.data;
  const failed = list.isError;
  // A person may belong to several tenants: the login's `tenant` chooses one; empty, the one signed into last.
  const [tenant, setTenant] = useState(() => new URLSearchParams(location.search).get('tenant') ?? '');
  const back = encodeURIComponent(`${location.origin}/`);
  return (
    <>
      <h1>Sign in</h1>
      {notice && <p role="status">{notice}</p>}
      {error && (
        <p role="alert" className="error">
          Sign-in failed: {error}
        </p>
      )}
      {failed && (
        <p role="alert" className="error">
          The sign-in providers could not be loaded. Reload the page to try again.
        </p>
      )}
      {providers && providers.length === 0 && (
        <p>
          No sign-in provider is configured. An operator sets DASHBOARD_OIDC_PROVIDERS, GitHub or Google credentials.
        </p>
      )}
      {providers && providers.length > 0 && (
        <div className="form">
          <label htmlFor="signin-tenant">Tenant (optional)</label>
          <input
            id="signin-tenant"
            value={tenant}
            maxLength={100}
            autoComplete="off"
            aria-describedby="signin-tenant-hint"
            onChange={(e) => setTenant(e.target.value)}
          />
          <p id="signin-tenant-hint" className="hint">
            The short name of the tenant to enter if you belong to several; empty: the one you used last.
          </p>
        </div>
      )}
      <ul className="providers">
        {providers?.map((p) => (
          <li key={p.id}>
            <a
              className="button"
              href={`${p.loginUrl}?redirect=${back}${tenant.trim() ? `&tenant=${encodeURIComponent(tenant.trim())}` : ''}`}
            >
              Sign in with {NAMES[p.id] ?? p.id}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}
