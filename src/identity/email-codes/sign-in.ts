import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { InteractionPages } from '../interaction/pages.ts';
import type { SecondFactor } from '../mfa/interaction.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { normaliseEmail } from '../principals/view.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { startLoginSession } from '../sessions/store.ts';
import type { Courier } from '../courier/courier.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage } from '../web/respond.ts';
import type { Messages } from '../web/i18n/en.ts';
import { checkCode, markVerified } from './store.ts';
import { signInCodePage } from './templates.ts';

export interface CodeSignInDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  loginSessionTtl: number;
  /** Codes asked for per address, and per client address (more generous). */
  throttles: { email: Throttle; address: Throttle };
  /** Where the request goes: stored, and mailed after the answer (sign-in-mail.ts has the job). */
  mail: Pick<Courier, 'ask'>;
  secondFactor?: SecondFactor | undefined;
}

type Form = FastifyRequest<{ Body: { csrf?: string; email?: string; code?: string } }>;

const looksLikeEmail = (email: string) => /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 320;
const boundTo = (d: Interaction) => sha256Hex(`sign-in:${d.uid}`);

/** The app of this sign-in request allows sign-in by emailed code (its email_code_sign_in setting). */
async function allowed(pages: InteractionPages, d: Interaction): Promise<boolean> {
  const client = await pages.provider().Client.find(String(d.params.client_id));
  return (client as { email_code_sign_in?: unknown } | undefined)?.email_code_sign_in === true;
}

function codePage(
  deps: CodeSignInDeps,
  pages: InteractionPages,
  reply: FastifyReply,
  d: Interaction,
  email: string,
  status: number,
  /** The error, in the page's language. */
  error?: (t: Messages) => string,
): FastifyReply {
  const loc = pageLanguage(reply.request, reply);
  return pages.html(
    reply,
    status,
    signInCodePage({
      action: `/interaction/${encodeURIComponent(d.uid)}/email-code/verify`,
      csrf: deps.csrf.issue(`email-code:${d.jti}`),
      email,
      back: `/interaction/${encodeURIComponent(d.uid)}`,
      error: error?.(loc.t),
      loc,
    }),
  );
}

/**
 * "Email me a sign-in code", posted from the sign-in form: every address that passes the checks gets the same page
 * after the same work (the throttles count it, the request is stored for the courier); nothing here reads the account.
 */
export async function requestSignInCode(
  deps: CodeSignInDeps,
  pages: InteractionPages,
  request: Form,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await pages.form(request, reply, uid, { prompt: 'login', purpose: 'login', page: 'sign-in' });
  if (!d) return reply;
  const { lang, t: all } = pageLanguage(request, reply);
  const t = all.emailCode;
  if (!(await allowed(pages, d))) return pages.html(reply, 403, errorPage(t.notOfferedTitle, t.notOffered, lang));
  const email = normaliseEmail(String(request.body.email ?? ''));
  if (!email) return pages.showSignIn(reply, d, 400, { email, error: t.missingEmail });
  if (!looksLikeEmail(email)) return pages.showSignIn(reply, d, 400, { email, error: t.badEmail });
  const emailKey = [`code:${sha256Hex(email)}`];
  const addressKey = [`code-address:${request.ip}`];
  const wait = Math.max(
    await deps.throttles.email.waitSeconds(emailKey),
    await deps.throttles.address.waitSeconds(addressKey),
  );
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    return pages.showSignIn(reply, d, 429, { email, error: all.email.throttled(wait) });
  }
  await Promise.all([deps.throttles.email.fail(emailKey), deps.throttles.address.fail(addressKey)]);
  await deps.mail.ask({ kind: 'sign_in_code', email, lang, boundTo: boundTo(d) });
  return codePage(deps, pages, reply, d, email, 200);
}

/**
 * The code posted: right, the person is signed in (the second step first when they have one) and their address counts
 * as verified; wrong, unknown, expired or spent (five wrong tries), the same page and words, so the answer never tells
 * whether the address has an account.
 */
export async function verifySignInCode(
  deps: CodeSignInDeps,
  pages: InteractionPages,
  request: Form,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await pages.form(request, reply, uid, { prompt: 'login', purpose: 'email-code', page: 'code' });
  if (!d) return reply;
  const email = normaliseEmail(String(request.body.email ?? ''));
  const code = String(request.body.code ?? '').replace(/\s/g, '');
  if (!looksLikeEmail(email))
    return pages.showSignIn(reply, d, 400, { error: pageLanguage(request, reply).t.emailCode.enterEmail });
  if (!/^\d{6}$/.test(code)) return codePage(deps, pages, reply, d, email, 400, (t) => t.email.sixDigits);
  const checked = await checkCode(deps.db, deps.secretKey, { email, purpose: 'sign_in', boundTo: boundTo(d), code });
  if (!checked.ok) return codePage(deps, pages, reply, d, email, 400, (t) => t.emailCode.wrongCode);
  await markVerified(deps.db, checked.principalId, email);
  deps.accounts.invalidate(checked.principalId);
  const second = await deps.secondFactor?.afterPassword(request, reply, d, checked.principalId, pages);
  if (second) return second;
  const token = await startLoginSession(deps.db, checked.principalId, deps.loginSessionTtl, {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });
  return pages.finish(request, reply, { login: { accountId: checked.principalId, remember: true } }, [
    loginCookie(token, deps.loginSessionTtl),
  ]);
}
