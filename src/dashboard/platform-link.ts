import type { OidcProviderConfig } from '../kit/upstream-login/config.ts';
import type { ConsoleLinks } from './console/links.ts';

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
    /**
     * For a person an admin adds: a human at identity with no password yet and a one-time link to choose one
     * (`created`, the link and its expiry), or `existing` when identity already has an account with that email (then
     * nothing is changed there and no link is made: they sign in with their own password).
     */
    inviteAccount(input: {
      email: string;
      name: string;
    }): Promise<{ status: 'created'; setupLink: string; expiresAt: string } | { status: 'existing' }>;
    /**
     * A new one-time link for a person whose account Add user made and who has no way to sign in yet; their older
     * unused links stop working. Identity's refusals are HttpErrors: 404 (no account with this email), 409 (they have a
     * password, a passkey or a linked account; deactivated; an account Add user did not make), with why.
     */
    newPasswordLink(input: { email: string }): Promise<{ setupLink: string; expiresAt: string }>;
  };
  /** The web app as the platform's console: identity's client for it and the services it calls. */
  console?: ConsoleLinks;
}
