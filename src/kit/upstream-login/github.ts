import { calculatePKCECodeChallenge } from 'openid-client';
import {
  LoginFailed,
  PROVIDER_TIMEOUT_MS,
  type LoginChecks,
  type LoginProvider,
  type ProviderIdentity,
} from './provider.ts';

/**
 * GitHub's OAuth web application flow (docs.github.com "Authorizing OAuth apps"): authorize at
 * `<web>/login/oauth/authorize` with PKCE, exchange at `<web>/login/oauth/access_token` (JSON with
 * `Accept: application/json`; errors come back as 200 with `error`), then `GET <api>/user` and
 * `GET <api>/user/emails` for the primary verified address. GitHub is not OpenID: no nonce.
 */
export function githubProvider(options: {
  clientId: string;
  clientSecret: string;
  webUrl: string;
  apiUrl: string;
}): LoginProvider {
  const web = options.webUrl.replace(/\/+$/, '');
  const api = options.apiUrl.replace(/\/+$/, '');
  const call = async (url: string, init: RequestInit): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    } catch (err) {
      throw new LoginFailed(
        `GitHub could not be reached (${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message})`,
      );
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new LoginFailed(`GitHub answered ${res.status} without JSON`);
    }
    if (!res.ok)
      throw new LoginFailed(
        `GitHub answered ${res.status}: ${String((body as { message?: unknown }).message ?? '').slice(0, 200)}`,
      );
    return body;
  };
  const apiHeaders = (token: string) => ({
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'platform',
  });
  return {
    id: 'github',
    async authorizationUrl(checks: LoginChecks, redirectUri: string) {
      const url = new URL(`${web}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: options.clientId,
        redirect_uri: redirectUri,
        scope: 'read:user user:email',
        state: checks.state,
        code_challenge: await calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        allow_signup: 'false',
      }).toString();
      return url;
    },
    async finish(callback: URL, checks: LoginChecks, redirectUri: string): Promise<ProviderIdentity> {
      const code = callback.searchParams.get('code');
      if (!code) throw new LoginFailed('GitHub sent no code');
      const token = (await call(`${web}/login/oauth/access_token`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'platform',
        },
        body: new URLSearchParams({
          client_id: options.clientId,
          client_secret: options.clientSecret,
          code,
          redirect_uri: redirectUri,
          code_verifier: checks.codeVerifier,
        }).toString(),
      })) as { access_token?: unknown; error?: unknown; error_description?: unknown };
      if (typeof token.access_token !== 'string') {
        throw new LoginFailed(
          `GitHub did not confirm the sign-in: ${typeof token.error === 'string' ? token.error : 'no access token'}${typeof token.error_description === 'string' ? ` (${token.error_description.slice(0, 200)})` : ''}`,
        );
      }
      const user = (await call(`${api}/user`, { headers: apiHeaders(token.access_token) })) as {
        id?: unknown;
        name?: unknown;
        login?: unknown;
      };
      if (typeof user.id !== 'number' && typeof user.id !== 'string')
        throw new LoginFailed("GitHub's /user answer has no id");
      const emails = await call(`${api}/user/emails`, { headers: apiHeaders(token.access_token) });
      const list = Array.isArray(emails)
        ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[])
        : [];
      const primary = list.find((e) => e.primary === true && e.verified === true && typeof e.email === 'string');
      const name =
        typeof user.name === 'string' && user.name
          ? user.name
          : typeof user.login === 'string'
            ? user.login
            : undefined;
      return {
        subject: String(user.id),
        email: primary?.email as string | undefined,
        emailVerified: Boolean(primary),
        name,
      };
    },
  };
}
