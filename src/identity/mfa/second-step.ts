import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import { startLoginSession } from '../sessions/store.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage } from '../web/respond.ts';
import { hasTotp } from './totp.ts';
import { endPending } from './pending.ts';
import { hasPasskey } from './passkeys.ts';
import { secondFactorPage } from './templates.ts';
import type { InteractionTools, SecondFactorDeps } from './interaction.ts';

/** The pages of the second step: the form, its refusals, and signing in once it passed. */

export const stepPath = (d: Interaction, rest: string) => `/interaction/${encodeURIComponent(d.uid)}/${rest}`;

/** What a passkey's WebAuthn challenge is bound to: this interaction. */
export const passkeyBinding = (d: Interaction) => `interaction:${d.jti}`;

/** The passkey button of a sign-in or second-step page. */
export function passkeyOption(deps: SecondFactorDeps, d: Interaction) {
  return {
    action: stepPath(d, 'passkey'),
    optionsUrl: stepPath(d, 'passkey/options'),
    csrf: deps.csrf.issue(`passkey:${d.jti}`),
  };
}

/** The second-factor page: the code form when the person has TOTP, the passkey button when they have a passkey. */
export async function showSecondFactor(
  deps: SecondFactorDeps,
  reply: FastifyReply,
  tools: InteractionTools,
  d: Interaction,
  principalId: string,
  status: number,
  error?: string,
  passkeyError?: string,
): Promise<FastifyReply> {
  const [totp, passkey, account] = await Promise.all([
    hasTotp(deps.db, principalId),
    hasPasskey(deps.db, principalId),
    deps.accounts.find(principalId),
  ]);
  return tools.html(
    reply,
    status,
    secondFactorPage({
      action: stepPath(d, 'mfa'),
      csrf: deps.csrf.issue(`mfa:${d.jti}`),
      totp,
      passkey: passkey ? { ...passkeyOption(deps, d), error: passkeyError } : undefined,
      error,
      accountLabel: account?.identifier ?? '',
      loc: pageLanguage(reply.request, reply),
    }),
  );
}

/** The step passed (or a passkey signed in): the pending step ends, a login session starts, the interaction finishes. */
export async function signInAfterStep(
  deps: SecondFactorDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  tools: InteractionTools,
  d: Interaction,
  principalId: string,
  amr: string[],
): Promise<FastifyReply> {
  await endPending(deps.db, d.jti);
  // A login session after a social first step keeps the provider's id, as one without a second step does.
  const provider = amr[0] && amr[0] !== 'pwd' && amr[0] !== 'hwk' ? amr[0] : undefined;
  // Every way here is a second step or a passkey sign-in: the session records it (removing a factor asks for a fresh one).
  const token = await startLoginSession(
    deps.db,
    principalId,
    deps.loginSessionTtl,
    { ip: request.ip, userAgent: request.headers['user-agent'] },
    provider,
    true,
  );
  return tools.finish(request, reply, { login: { accountId: principalId, remember: true, amr } }, [
    loginCookie(token, deps.loginSessionTtl),
  ]);
}

export function stepExpired(tools: InteractionTools, reply: FastifyReply): FastifyReply {
  const { lang, t } = pageLanguage(reply.request, reply);
  return tools.html(reply, 400, errorPage(t.totp.stepExpiredTitle, t.totp.stepExpired, lang));
}
