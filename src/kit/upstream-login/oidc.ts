import * as client from 'openid-client';
import {
  LoginFailed,
  PROVIDER_TIMEOUT_MS,
  type LoginChecks,
  type LoginProvider,
  type ProviderIdentity,
} from './provider.ts';

/**
 * Any OpenID Connect issuer (Google, the platform's identity service, Keycloak, ...) through
 * openid-client: discovery on first use (retried after a failure), authorization code with PKCE
 * (S256) and nonce, ID token validated by the library, email from the ID token or UserInfo.
 */
export function oidcProvider(options: {
  id: string;
  issuer: string;
  clientId: string;
  clientSecret?: string | undefined;
  scope?: string;
  /** Every request to the issuer goes through it: a URL a caller named is fetched through the outbound guard. */
  fetch?: client.CustomFetch | undefined;
}): LoginProvider {
  let discovered: Promise<client.Configuration> | undefined;
  const insecure = new URL(options.issuer).protocol === 'http:';
  const configuration = () => {
    discovered ??= client
      .discovery(
        new URL(options.issuer),
        options.clientId,
        options.clientSecret,
        options.clientSecret ? client.ClientSecretBasic(options.clientSecret) : client.None(),
        {
          timeout: PROVIDER_TIMEOUT_MS / 1000,
          // Plain http is for an issuer on the same machine (development, tests); https everywhere else.
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
          ...(options.fetch ? { [client.customFetch]: options.fetch } : {}),
        },
      )
      .catch((err: unknown) => {
        discovered = undefined;
        throw new LoginFailed(`the ${options.id} sign-in service could not be reached (${(err as Error).message})`);
      });
    return discovered;
  };
  return {
    id: options.id,
    async authorizationUrl(checks: LoginChecks, redirectUri: string) {
      const config = await configuration();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: options.scope ?? 'openid email profile',
        response_type: 'code',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async finish(callback: URL, checks: LoginChecks): Promise<ProviderIdentity> {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        throw new LoginFailed(`${options.id} did not confirm the sign-in: ${describe(err)}`);
      }
      const claims = tokens.claims()!;
      let email = typeof claims.email === 'string' ? claims.email : undefined;
      let verified = claims.email_verified === true;
      let name = typeof claims.name === 'string' ? claims.name : undefined;
      if (email === undefined) {
        try {
          const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
          email = typeof info.email === 'string' ? info.email : undefined;
          verified = info.email_verified === true;
          name ??= typeof info.name === 'string' ? info.name : undefined;
        } catch (err) {
          throw new LoginFailed(`${options.id} did not answer who signed in: ${describe(err)}`);
        }
      }
      return { subject: claims.sub, email, emailVerified: verified, name };
    },
  };
}

function describe(err: unknown): string {
  const e = err as { error?: string; error_description?: string; message?: string };
  return e.error
    ? `${e.error}${e.error_description ? ` (${e.error_description})` : ''}`
    : (e.message ?? 'unknown error');
}
