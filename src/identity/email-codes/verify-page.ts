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
    staticHtml(reply, 400, errorPage('No email address here', 'Only people have an email address to verify.'));
    return undefined;
  }
  return { ...who, email: who.human.email };
}

function show(
  deps: VerifyPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  who: PrincipalView & { email: string },
  view: { stage: 'start' | 'code' | 'done'; verified?: boolean; error?: string },
  status = 200,
): FastifyReply {
  const verified = view.verified ?? !!who.human?.emailVerifiedAt;
  const csrf = deps.forms.issue(request, reply, purpose(who));
  return staticHtml(
    reply,
    status,
    emailPage({ email: who.email, verified, csrf, ...view, loc: pageLanguage(request, reply) }),
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
    refusedForm(reply, 'email address');
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
    const error = `Too many codes asked for. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`;
    return show(deps, request, reply, who, { stage: 'code', error }, 429);
  }
  await deps.throttle.fail(key);
  const code = await issueCode(deps.db, deps.secretKey, {
    principalId: who.id,
    email: who.email,
    purpose: 'verify',
    boundTo: who.id,
  });
  const sent = await mailCode(deps.mailer, { to: who.email, code, purpose: 'verify', host: new URL(deps.issuer).host });
  if (!sent)
    return show(
      deps,
      request,
      reply,
      who,
      { stage: 'start', error: 'Mail is not set up on this server, so no code can be sent. Ask its administrator.' },
      503,
    );
  return show(deps, request, reply, who, { stage: 'code' });
}

/** The code typed: right, the address is verified; wrong, expired or spent, the form again saying so. */
export async function verifyCode(deps: VerifyPageDeps, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = checked(deps, request, reply);
  if (!who) return reply;
  const code = String(request.body.code ?? '').replace(/\s/g, '');
  if (!/^\d{6}$/.test(code))
    return show(
      deps,
      request,
      reply,
      who,
      { stage: 'code', error: 'Enter the 6 digits of the code from the email.' },
      400,
    );
  const result = await checkCode(deps.db, deps.secretKey, {
    email: who.email,
    purpose: 'verify',
    boundTo: who.id,
    code,
  });
  if (!result.ok) {
    const error = result.spent
      ? 'That was the last try for this code. Send a new code.'
      : 'This code is not right or no longer works. Check the newest email, or send a new code.';
    return show(deps, request, reply, who, { stage: 'code', error }, 400);
  }
  await markVerified(deps.db, who.id, who.email);
  deps.accounts.invalidate(who.id);
  return show(deps, request, reply, who, { stage: 'done', verified: true });
}
