import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { PrincipalView } from '../principals/view.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { signedInAs } from '../access/signed-in.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage, sameOrigin, staticHtml } from '../web/respond.ts';
import type { FormGuard } from '../web/form-guard.ts';
import { verifyCurrentPassword } from './password-check.ts';
import { changePassword } from './password.ts';
import { changePasswordPage, passwordChangedPage, type PasswordField } from './templates.ts';

export interface PasswordPageDeps {
  db: Database;
  throttle: Throttle;
  issuer: string;
  loginSessionTtl: number;
  forms: FormGuard;
}

type PasswordForm = FastifyRequest<{
  Body: {
    csrf?: string | undefined;
    current_password?: string | undefined;
    new_password?: string | undefined;
    confirm_password?: string | undefined;
  };
}>;

/** The change-password form, again with `error` marking the `invalid` fields when given. */
export function passwordForm(
  deps: PasswordPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  who: PrincipalView,
  status = 200,
  error?: string,
  invalid?: PasswordField[],
): FastifyReply {
  return staticHtml(
    reply,
    status,
    changePasswordPage({
      action: '/account/password',
      csrf: deps.forms.issue(request, reply, `password:${who.id}`),
      accountLabel: who.identifier,
      error,
      invalid,
      loc: pageLanguage(request, reply),
    }),
  );
}

/** The signed-in person, when a person (only people have passwords; anyone else gets a 400 page). */
export function humanOrRefuse(request: FastifyRequest, reply: FastifyReply): PrincipalView | undefined {
  // Signed out, the access check has answered already (the sign-in for the page, a 401 page for the form).
  const who = signedInAs(request).account;
  if (!who.human) {
    const { lang, t } = pageLanguage(request, reply);
    staticHtml(reply, 400, errorPage(t.errors.noPasswordTitle, t.errors.noPassword, lang));
    return undefined;
  }
  return who;
}

/**
 * The change-password form posted: the current password checked (failures count toward the sign-in slow-down), the new
 * one twice; then every other browser is signed out and this one gets a fresh login session.
 */
export async function submitPassword(
  deps: PasswordPageDeps,
  request: PasswordForm,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const who = humanOrRefuse(request, reply);
  if (!who) return reply;
  if (!sameOrigin(request, deps.issuer) || !deps.forms.verify(request, `password:${who.id}`, request.body.csrf)) {
    const { lang, t } = pageLanguage(request, reply);
    return staticHtml(reply, 403, errorPage(t.errors.refused, t.errors.expiredForm('change-password'), lang));
  }
  const again = (status: number, error: string, invalid: PasswordField[]) =>
    passwordForm(deps, request, reply, who, status, error, invalid);
  const current = String(request.body.current_password ?? '');
  const next = String(request.body.new_password ?? '');
  const confirm = String(request.body.confirm_password ?? '');
  const t = pageLanguage(request, reply).t.password;
  if (!current) return again(400, t.missingCurrent, ['current']);
  if (next.length < MIN_PASSWORD_LENGTH) return again(400, t.tooShort(MIN_PASSWORD_LENGTH), ['new']);
  if (next !== confirm) return again(400, t.mismatch, ['confirm']);
  const check = await verifyCurrentPassword(deps.db, deps.throttle, request, who, current);
  if (check.wait > 0) {
    reply.header('retry-after', String(check.wait));
    return again(429, t.throttled(check.wait), ['current']);
  }
  if (!check.ok) return again(401, t.wrongCurrent, ['current']);
  const token = await changePassword(
    deps.db,
    who.id,
    next,
    { ip: request.ip, userAgent: request.headers['user-agent'] },
    deps.loginSessionTtl,
  );
  reply.header('set-cookie', loginCookie(token!, deps.loginSessionTtl));
  return staticHtml(reply, 200, passwordChangedPage(who.identifier, pageLanguage(request, reply)));
}
