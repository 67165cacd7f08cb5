import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../kit/crypto.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { normaliseEmail } from '../principals/view.ts';
import type { FormGuard } from '../web/form-guard.ts';
import { pageLanguage, refusedForm, sameOrigin, staticHtml } from '../web/respond.ts';
import { FORGOT_PASSWORD_PATH, signInLink } from '../web/sign-in-link.ts';
import type { Courier } from '../courier/courier.ts';
import { forgotPasswordPage, linkRequestedPage } from './recovery-templates.ts';

export interface RecoveryPageDeps {
  issuer: string;
  forms: FormGuard;
  /** Where the request goes: stored, and mailed after the answer (recovery.ts has the job). */
  mail: Pick<Courier, 'ask'>;
  /** Requests per email address, and per client address (a more generous one). */
  throttles: { email: Throttle; address: Throttle };
  ttlSeconds: number;
}

const PURPOSE = 'forgot-password';
// An authorization request's sign-in page (where its "Forgot your password?" link comes from), by its path only.
const INTERACTION = /^\/interaction\/[A-Za-z0-9_-]{1,100}$/;

/** Where "Back to sign in" leads: the sign-in page the person came from, else the account sign-in. */
export function backTo(value: unknown): string {
  return typeof value === 'string' && INTERACTION.test(value) ? value : signInLink('/account/password');
}

function form(
  deps: RecoveryPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  view: { back: string; email?: string; error?: string },
  status = 200,
): FastifyReply {
  const csrf = deps.forms.issue(request, reply, PURPOSE);
  return staticHtml(
    reply,
    status,
    forgotPasswordPage({ action: FORGOT_PASSWORD_PATH, csrf, ...view, loc: pageLanguage(request, reply) }),
  );
}

export function showForgotPassword(
  deps: RecoveryPageDeps,
  request: FastifyRequest<{ Querystring: { back?: string | undefined } }>,
  reply: FastifyReply,
): FastifyReply {
  return form(deps, request, reply, { back: backTo(request.query.back) });
}

const looksLikeEmail = (email: string) => /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 320;

/**
 * The form posted. Every address that passes the checks gets the same page, and the same work before it: the throttle
 * counts the request, the request is stored (recovery.ts does the look-up later). Nothing here reads the account.
 */
export async function requestReset(
  deps: RecoveryPageDeps,
  request: FastifyRequest<{
    Body: { csrf?: string | undefined; email?: string | undefined; back?: string | undefined };
  }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (!sameOrigin(request, deps.issuer) || !deps.forms.verify(request, PURPOSE, request.body.csrf))
    return refusedForm(reply, 'forgot password', pageLanguage(request, reply));
  const back = backTo(request.body.back);
  const email = normaliseEmail(String(request.body.email ?? ''));
  const t = pageLanguage(request, reply).t.errors;
  if (!email) return form(deps, request, reply, { back, error: t.enterEmail }, 400);
  if (!looksLikeEmail(email)) return form(deps, request, reply, { back, email, error: t.badEmail }, 400);
  const emailKey = [`reset:${sha256Hex(email)}`];
  const addressKey = [`reset-address:${request.ip}`];
  const wait = Math.max(
    await deps.throttles.email.waitSeconds(emailKey),
    await deps.throttles.address.waitSeconds(addressKey),
  );
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    return form(deps, request, reply, { back, email, error: t.linksThrottled(wait) }, 429);
  }
  await Promise.all([deps.throttles.email.fail(emailKey), deps.throttles.address.fail(addressKey)]);
  await deps.mail.ask({ kind: 'password_reset', email, lang: pageLanguage(request, reply).lang });
  return staticHtml(
    reply,
    200,
    linkRequestedPage({ email, back, minutes: Math.round(deps.ttlSeconds / 60), loc: pageLanguage(request, reply) }),
  );
}
