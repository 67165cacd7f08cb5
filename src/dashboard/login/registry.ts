import type { DashboardConfig } from '../config.ts';
import { githubProvider } from './github.ts';
import { oidcProvider } from './oidc.ts';
import type { LoginProvider } from './provider.ts';

/** The built-in `github` and `google` (when their credentials are configured) and every configured OpenID issuer. */
export function loginProviders(config: DashboardConfig): Map<string, LoginProvider> {
  const out = new Map<string, LoginProvider>();
  if (config.githubClientId && config.githubClientSecret) {
    out.set(
      'github',
      githubProvider({
        clientId: config.githubClientId,
        clientSecret: config.githubClientSecret,
        webUrl: config.githubUrl,
        apiUrl: config.githubApiUrl,
      }),
    );
  }
  if (config.googleClientId && config.googleClientSecret) {
    out.set(
      'google',
      oidcProvider({
        id: 'google',
        issuer: config.googleIssuer,
        clientId: config.googleClientId,
        clientSecret: config.googleClientSecret,
      }),
    );
  }
  for (const p of config.oidcProviders) out.set(p.id, oidcProvider(p));
  // The platform's identity service started in the same process (src/platform/links.ts); an operator's own `platform` wins.
  const linked = config.links?.identity.provider;
  if (linked && !out.has(linked.id)) out.set(linked.id, oidcProvider(linked));
  return out;
}
