import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import { sha256Hex } from '../../kit/crypto.ts';
import { checkPassword } from '../principals/store.ts';
import { normaliseEmail } from '../principals/view.ts';
import { findLoginSession, startLoginSession } from '../sessions/store.ts';
import { LOGIN_COOKIE, loginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage } from '../web/respond.ts';
import { consentStep } from './consent-step.ts';
import type { InteractionPages, PageDeps } from './pages.ts';
import { recordSignInFailure } from '../events/sign-in-failure.ts';

/**
 * The interaction page: the sign-in form (or the second step a social sign-in left pending), straight through when the
 * browser's login session already covers it, or the consent step.
 */
export async function interactionPage(
  deps: PageDeps,
  pages: InteractionPages,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await pages.details(request, reply, uid);
  if (!d) return reply;
  if (d.prompt.name === 'login') {
    // A social sign-in of a person with a second factor comes back here for that step.
    const second = await deps.secondFactor?.resume(reply, d, pages);
    if (second) return second;
    const session = await findLoginSession(deps.db, readCookie(request.headers.cookie, LOGIN_COOKIE));
    if (session && d.prompt.reasons.every((r) => r === 'no_session' || r === 'login_session')) {
      return pages.finish(request, reply, { login: { accountId: session.principalId } });
    }
    return pages.showSignIn(reply, d, 200);
  }
  if (d.prompt.name === 'consent') return consentStep(deps, pages, request, reply, d, undefined);
  const { lang, t } = pageLanguage(request, reply);
  return pages.html(reply, 400, errorPage(t.errors.requestFailedTitle, t.errors.stepNotOffered, lang));
}

/**
 * The sign-in form posted: the password checked (failures slow the account and the address down), then the second step
 * when the person has one, else the login session started and the interaction finished.
 */
export async function submitSignIn(
  deps: PageDeps,
  pages: InteractionPages,
  request: FastifyRequest<{
    Body: { csrf?: string | undefined; email?: string | undefined; password?: string | undefined };
  }>,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await pages.form(request, reply, uid, { prompt: 'login', purpose: 'login', page: 'sign-in' });
  if (!d) return reply;
  const email = normaliseEmail(String(request.body.email ?? ''));
  const password = String(request.body.password ?? '');
  const again = (status: number, error: string) => pages.showSignIn(reply, d, status, { email, error });
  const { t } = pageLanguage(request, reply);
  // Identifier first: an address an organization's enterprise SSO holds goes to its IdP, and its password is not
  // asked for (the IdP decides who that person is); a platform admin's is, so a broken IdP cannot lock the platform out.
  const bound = email ? await deps.enterpriseSso?.route(email, request, uid) : undefined;
  if (bound) {
    if (password) return again(403, t.signIn.ssoOnly(bound.domain, bound.organization));
    return bound.go(reply);
  }
  if (!email || !password) return again(400, t.signIn.missingFields);
  const keys = [`account:${sha256Hex(email)}`, `address:${request.ip}`];
  const wait = await deps.throttle.waitSeconds(keys);
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    return again(429, t.signIn.throttled(wait));
  }
  const human = await checkPassword(deps.db, email, password, request.ip);
  if (!human) {
    await deps.throttle.fail(keys);
    await recordSignInFailure(deps.db, email, 'password', request.ip);
    return again(401, t.signIn.wrongPassword);
  }
  await deps.throttle.succeed(keys[0]!);
  return signedInWithPassword(deps, pages, request, reply, d, human.id);
}

async function signedInWithPassword(
  deps: PageDeps,
  pages: InteractionPages,
  request: FastifyRequest,
  reply: FastifyReply,
  d: Interaction,
  principalId: string,
): Promise<FastifyReply> {
  const second = await deps.secondFactor?.afterPassword(request, reply, d, principalId, pages);
  if (second) return second;
  const token = await startLoginSession(deps.db, principalId, deps.loginSessionTtl, {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });
  return pages.finish(request, reply, { login: { accountId: principalId, remember: true } }, [
    loginCookie(token, deps.loginSessionTtl),
  ]);
}
