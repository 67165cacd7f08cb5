import { githubProvider } from '../../kit/upstream-login/github.ts';
import { oidcProvider } from '../../kit/upstream-login/oidc.ts';
import type { LoginProvider, ProviderIdentity } from '../../kit/upstream-login/provider.ts';
import type { Database } from '../../kit/db.ts';
import type { Resolved } from './link.ts';
import type { IdentityConfig } from '../config.ts';

export interface SocialProvider {
  provider: LoginProvider;
  /** Shown on the sign-in button: "Continue with <name>". */
  name: string;
  /** Who the upstream account signs in as, when not social login's rules (an organization's enterprise SSO). */
  resolve?: (db: Database, who: ProviderIdentity) => Promise<Resolved>;
}

/** The providers a sign-in page offers: GitHub and Google when their credentials are set, and every configured OpenID issuer. */
export function socialProviders(config: IdentityConfig): Map<string, SocialProvider> {
  const out = new Map<string, SocialProvider>();
  if (config.githubClientId && config.githubClientSecret) {
    out.set('github', {
      name: 'GitHub',
      provider: githubProvider({
        clientId: config.githubClientId,
        clientSecret: config.githubClientSecret,
        webUrl: config.githubUrl,
        apiUrl: config.githubApiUrl,
      }),
    });
  }
  if (config.googleClientId && config.googleClientSecret) {
    out.set('google', {
      name: 'Google',
      provider: oidcProvider({
        id: 'google',
        issuer: config.googleIssuer,
        clientId: config.googleClientId,
        clientSecret: config.googleClientSecret,
      }),
    });
  }
  for (const p of config.oidcProviders) out.set(p.id, { name: p.name ?? p.id, provider: oidcProvider(p) });
  return out;
}

/** The fixed redirect URI registered at the provider. */
export function callbackUrl(issuer: string, providerId: string): string {
  return new URL(`/upstream/${providerId}/callback`, issuer).href;
}
