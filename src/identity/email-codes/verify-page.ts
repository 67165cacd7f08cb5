import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { Mailer } from '../../kit/outbound/mail.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { signedInAs } from '../access/signed-in.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import type { FormGuard } from '../web/form-guard.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage, refusedForm, sameOrigin, staticHtml } from '../web/respond.ts';
import { mailCode } from './mail.ts';
import { checkCode, issueCode, markVerified } from './store.ts';
import { emailPage } from './templates.ts';
import type { Messages } from '../web/i18n/en.ts';

export interface VerifyPageDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  mailer: Mailer;
  issuer: string;
  forms: FormGuard;
  /** Codes mailed per person. */
  throttle: Throttle;
}

type Form = FastifyRequest<{ Body: { csrf?: string; code?: string } }>;
const purpose = (who: PrincipalView) => `email-verify:${who.id}`;

/** The signed-in person, when a person with an address; anyone else gets a 400 page. */
function person(request: FastifyRequest, reply: FastifyReply): (PrincipalView & { email: string }) | undefined {
  const who = signedInAs(request).account;
  if (!who.human) {
    const { lang, t } = pageLanguage(request, reply);
    staticHtml(reply, 400, errorPage(t.email.noEmailTitle, t.email.noEmail, lang));
    return undefined;
  }
  return { ...who, email: who.human.email };
}

function show(
  deps: VerifyPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  who: PrincipalView & { email: string },
  view: { stage: 'start' | 'code' | 'done'; verified?: boolean; error?: (t: Messages['email']) => string },
  status = 200,
): FastifyReply {
  const verified = view.verified ?? !!who.human?.emailVerifiedAt;
  const csrf = deps.forms.issue(request, reply, purpose(who));
  const loc = pageLanguage(request, reply);
  return staticHtml(
    reply,
    status,
    emailPage({ email: who.email, verified, csrf, ...view, error: view.error?.(loc.t.email), loc }),
  );
}

export function emailAddressPage(deps: VerifyPageDeps, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const who = person(request, reply);
  return who ? show(deps, request, reply, who, { stage: 'start' }) : reply;
}

/** The form is the person's own, from this page: else 403. */
function checked(deps: VerifyPageDeps, request: Form, reply: FastifyReply) {
  const who = person(request, reply);
  if (!who) return undefined;
  if (!sameOrigin(request, deps.issuer) || !deps.forms.verify(request, purpose(who), request.body.csrf)) {
    refusedForm(reply, 'email address', pageLanguage(request, reply));
    return undefined;
  }
  return who;
}

/** "Email me a code": a six-digit code to the account's address, a few per hour. */
export async function sendVerifyCode(deps: VerifyPageDeps, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = checked(deps, request, reply);
  if (!who) return reply;
  if (who.human?.emailVerifiedAt) return show(deps, request, reply, who, { stage: 'start' });
  const key = [`verify:${who.id}`];
  const wait = await deps.throttle.waitSeconds(key);
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    return show(deps, request, reply, who, { stage: 'code', error: (t) => t.throttled(wait) }, 429);
  }
  await deps.throttle.fail(key);
  const code = await issueCode(deps.db, deps.secretKey, {
    principalId: who.id,
    email: who.email,
    purpose: 'verify',
    boundTo: who.id,
  });
  const sent = await mailCode(deps.mailer, {
    to: who.email,
    code,
    purpose: 'verify',
    host: new URL(deps.issuer).host,
    loc: pageLanguage(request, reply),
  });
  if (!sent) return show(deps, request, reply, who, { stage: 'start', error: (t) => t.noMail }, 503);
  return show(deps, request, reply, who, { stage: 'code' });
}

/** The code typed: right, the address is verified; wrong, expired or spent, the form again saying so. */
export async function verifyCode(deps: VerifyPageDeps, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = checked(deps, request, reply);
  if (!who) return reply;
  const code = String(request.body.code ?? '').replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) return show(deps, request, reply, who, { stage: 'code', error: (t) => t.sixDigits }, 400);
  const result = await checkCode(deps.db, deps.secretKey, {
    email: who.email,
    purpose: 'verify',
    boundTo: who.id,
    code,
  });
  if (!result.ok) {
    const error = (t: Messages['email']) => (result.spent ? t.lastTry : t.wrongCode);
    return show(deps, request, reply, who, { stage: 'code', error }, 400);
  }
  await markVerified(deps.db, who.id, who.email);
  deps.accounts.invalidate(who.id);
  return show(deps, request, reply, who, { stage: 'done', verified: true });
}
