import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../kit/crypto.ts';
import { endBrowserSession } from '../oidc/browser-session.ts';
import { LOGIN_COOKIE, clearedLoginCookie } from '../sessions/cookie.ts';
import { endLoginSession, findLoginSession } from '../sessions/store.ts';
import { readCookie } from '../web/cookies.ts';
import { html, pageLanguage, refusedForm, sameOrigin } from '../web/respond.ts';
import type { PageDeps } from './pages.ts';
import { signOutPage } from './templates.ts';

/** The sign-out form's CSRF binding: this browser's login session (or none). */
const binding = (token: string | undefined) => `signout:${sha256Hex(token ?? '')}`;

/** The sign-out page: who the browser is signed in as, and the button. */
export async function signOutForm(deps: PageDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
  const session = await findLoginSession(deps.db, token);
  const account = session ? await deps.accounts.find(session.principalId) : undefined;
  return html(
    reply,
    200,
    signOutPage({
      action: '/signout',
      csrf: deps.csrf.issue(binding(token)),
      accountLabel: account?.identifier,
      loc: pageLanguage(request, reply),
    }),
  );
}

/** Signing out: the login session ends, and the provider's own session too (no app can reuse it to skip signing in). */
export async function signOut(
  deps: PageDeps,
  request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
  if (!sameOrigin(request, deps.issuer) || !deps.csrf.verify(binding(token), request.body.csrf))
    return refusedForm(reply, 'sign-out', pageLanguage(request, reply));
  await endLoginSession(deps.db, token);
  const provider = await endBrowserSession(deps.db, deps.holder.current, request.headers.cookie);
  reply.header('set-cookie', [clearedLoginCookie(), ...provider.clearing]);
  return html(reply, 200, signOutPage({ action: '/signout', csrf: '', loc: pageLanguage(request, reply) }));
}
