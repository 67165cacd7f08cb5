/** What a provider tells us about the person who signed in. */
export interface ProviderIdentity {
  /** The provider's stable id of the account (OpenID `sub`, GitHub's numeric user id). */
  subject: string;
  email: string | undefined;
  /** Only a verified email may match a user an admin created. */
  emailVerified: boolean;
  name: string | undefined;
}

/** The values of one login in flight, kept server-side under the state cookie. */
export interface LoginChecks {
  state: string;
  codeVerifier: string;
  nonce: string;
}

export interface LoginProvider {
  id: string;
  /** The provider's authorization URL for this login. */
  authorizationUrl(checks: LoginChecks, redirectUri: string): Promise<URL>;
  /** Exchanges the code in the callback and reads the person; throws LoginFailed with a message safe to show. */
  finish(callback: URL, checks: LoginChecks, redirectUri: string): Promise<ProviderIdentity>;
}

export class LoginFailed extends Error {}

export const PROVIDER_TIMEOUT_MS = 10_000;
