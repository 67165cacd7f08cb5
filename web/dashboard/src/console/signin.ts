import type { ConsoleIdentity } from './config.ts';
import { challengeOf, randomValue } from './pkce.ts';
import { keepPending, takePending, writeConsoleSession, type ConsoleSession } from './session.ts';

/** The token endpoint's answer (RFC 6749 5.1), as far as the console reads it. */
interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  error?: string;
  error_description?: string;
}

/** A token answer as the console keeps it; the refresh token stays the old one if a refresh gave none. */
export function sessionOf(
  answer: TokenAnswer,
  previous: Pick<ConsoleSession, 'email'> & Partial<ConsoleSession>,
): ConsoleSession {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previous.refreshToken ?? '',
    scope: answer.scope ?? previous.scope ?? '',
    email: previous.email,
  };
}

/**
 * Whose account a new token is, from identity's userinfo (an ID token carries no email when an access token comes
 * with it): the console compares it with the dashboard's person.
 */
async function emailOf(identity: ConsoleIdentity, accessToken: string): Promise<string | undefined> {
  const r = await fetch(new URL('/oauth/userinfo', identity.issuer), {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (!r.ok) return undefined;
  const claims = (await r.json()) as { email?: unknown };
  return typeof claims.email === 'string' ? claims.email : undefined;
}

/** A form post to identity's token endpoint (cross-origin: identity allows the console's origin for its client). */
export async function tokenRequest(
  identity: ConsoleIdentity,
  params: Record<string, string>,
): Promise<TokenAnswer | undefined> {
  const r = await fetch(new URL('/oauth/token', identity.issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: identity.clientId, ...params }),
  });
  return r.ok ? ((await r.json()) as TokenAnswer) : undefined;
}

/**
 * Sends the tab to identity's authorization endpoint (a top-level redirect: it carries identity's own session cookie,
 * which a hidden frame would not under third-party cookie rules) with PKCE. `silent` asks with `prompt=none`: with a
 * session at identity the person comes straight back without a page; without one, back with `login_required`.
 */
export async function startConsoleSignIn(identity: ConsoleIdentity, silent: boolean): Promise<void> {
  const verifier = randomValue();
  const state = randomValue();
  keepPending({ state, verifier, returnTo: location.pathname + location.search, silent });
  const url = new URL('/oauth/authorize', identity.issuer);
  url.search = new URLSearchParams({
    client_id: identity.clientId,
    redirect_uri: identity.redirectUri,
    response_type: 'code',
    scope: identity.scope,
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    ...(silent ? { prompt: 'none' } : {}),
  }).toString();
  location.assign(url.href);
}

/** What coming back from identity gave: where to go, and what to say when no session was made. */
export interface Finished {
  returnTo: string;
  /** Set when the console has no session: `quiet` for a silent question identity could not answer without a page. */
  failure?: { quiet: boolean; message: string };
}

/** On the callback page: checks the state, trades the code (with the PKCE verifier) for the console's tokens. */
export async function finishConsoleSignIn(identity: ConsoleIdentity): Promise<Finished> {
  const params = new URLSearchParams(location.search);
  const pending = takePending();
  if (!pending || params.get('state') !== pending.state)
    return { returnTo: '/', failure: { quiet: false, message: 'The sign-in to the platform did not complete.' } };
  const error = params.get('error');
  if (error) {
    const quiet = pending.silent && /^(login|consent|interaction)_required$/.test(error);
    return {
      returnTo: pending.returnTo,
      failure: { quiet, message: `The platform refused the sign-in: ${params.get('error_description') ?? error}` },
    };
  }
  const answer = await tokenRequest(identity, {
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    redirect_uri: identity.redirectUri,
    code_verifier: pending.verifier,
  }).catch(() => undefined);
  const email = answer?.access_token ? await emailOf(identity, answer.access_token).catch(() => undefined) : undefined;
  if (!answer?.access_token || !email)
    return { returnTo: pending.returnTo, failure: { quiet: false, message: 'The platform could not be reached.' } };
  writeConsoleSession(sessionOf(answer, { email }));
  return { returnTo: pending.returnTo };
}

/** Ends the console's refresh token at identity (a public client revokes its own with its client_id). */
export function revokeConsoleToken(identity: ConsoleIdentity, refreshToken: string): void {
  void fetch(new URL('/oauth/revoke', identity.issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: identity.clientId, token: refreshToken, token_type_hint: 'refresh_token' }),
  }).catch(() => {});
}
