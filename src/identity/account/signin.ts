import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { normaliseEmail } from '../principals/view.ts';
import { LOGIN_COOKIE, clearedLoginCookie } from '../sessions/cookie.ts';
import { endLoginSession } from '../sessions/store.ts';
import { signedIn } from '../sessions/signed-in.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import { endBrowserSession } from '../oidc/browser-session.ts';
import { spendAuthorizationCode } from '../oidc/store.ts';
import { readCookie } from '../web/cookies.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage, staticHtml } from '../web/respond.ts';
import { safeReturn } from '../web/sign-in-link.ts';
import type { SignInFlow } from './signin-flow.ts';

export interface SignInDeps {
  db: Database;
  accounts: PrincipalDirectory;
  issuer: string;
  holder: ProviderHolder;
}

/**
 * `/signin`: a live session is kept (a link to an account page must not throw it away) and goes straight to `return_to`.
 * Only "sign in as someone else" (prompt=login), or a hint naming another person (an invitation or password link for
 * them), signs in afresh, through the normal sign-in (an authorization request of the built-in account client), so
 * these pages get exactly what the authorization pages do: the same page, throttle, login session and any second factor.
 */
export async function startSignIn(
  deps: SignInDeps,
  flow: SignInFlow,
  request: FastifyRequest<{ Querystring: { return_to?: string; login_hint?: string; prompt?: 'login' } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const returnTo = safeReturn(request.query.return_to, deps.issuer);
  const who = await signedIn(deps.db, deps.accounts, request);
  const hint = request.query.login_hint ? normaliseEmail(request.query.login_hint) : undefined;
  if (who && request.query.prompt !== 'login' && (!hint || hint === normaliseEmail(who.account.human?.email ?? ''))) {
    return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
  }
  const { location, cookie } = flow.start(returnTo, request.query.login_hint);
  // The browser is signed out first (both sessions, as /signout does): signing in as someone else inside a live
  // provider session would make the provider end that session mid-way, and the new login session with it.
  const loginToken = readCookie(request.headers.cookie, LOGIN_COOKIE);
  await endLoginSession(deps.db, loginToken);
  const provider = await endBrowserSession(deps.db, deps.holder.current, request.headers.cookie);
  const cleared = loginToken || provider.found ? [clearedLoginCookie(), ...provider.clearing] : [];
  return reply
    .header('set-cookie', [...cleared, cookie])
    .header('cache-control', 'no-store')
    .redirect(location, 303);
}

/** The end of the sign-in round trip: back to the page that asked for it, its code spent (it proves nothing more). */
export async function finishSignIn(
  deps: SignInDeps,
  flow: SignInFlow,
  request: FastifyRequest<{ Querystring: { code?: string; state?: string; error?: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const returnTo = flow.finish(request, request.query.state);
  reply.header('set-cookie', flow.clearedCookie());
  // The code proves nothing more than the login session the sign-in just made; it is spent so it cannot be used later.
  if (request.query.code) await spendAuthorizationCode(deps.db, request.query.code);
  const { lang, t } = pageLanguage(request, reply);
  if (!returnTo) return staticHtml(reply, 400, errorPage(t.errors.signInExpiredTitle, t.errors.signInExpired, lang));
  if (request.query.error || !request.query.code)
    return staticHtml(reply, 400, errorPage(t.errors.signInIncompleteTitle, t.errors.signInIncomplete, lang));
  return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
}
