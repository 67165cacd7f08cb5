import type { OidcProviderConfig } from '../kit/upstream-login/config.ts';

/**
 * What `platform start` hands the dashboard when it runs the platform's identity service in the same process
 * (src/platform/links.ts): sign-in with identity as the OpenID provider `platform`, and a way for the first run to give
 * the first owner an account there. Absent when the dashboard runs alone or the operator configured `platform` himself.
 */
export interface DashboardLinks {
  identity: {
    /** The provider `platform`: identity's issuer and its built-in public client for the dashboard (PKCE, no secret). */
    provider: OidcProviderConfig;
    /** Identity's own minimum, checked by the first-run form before anything is written. */
    minPasswordLength: number;
    /** Makes a verified human with this email and password at identity, unless one with that email exists. */
    ensureOwnerAccount(input: { email: string; name: string; password: string }): Promise<'created' | 'existing'>;
  };
}
