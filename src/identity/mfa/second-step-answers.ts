import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import { verifyTotp } from './totp.ts';
import { useRecoveryCode } from './recovery-codes.ts';
import { findPending, findPendingStep } from './pending.ts';
import { authenticationOptions, PasskeyError, verifyPasskey, type RelyingParty } from './passkeys.ts';
import type { InteractionTools, SecondFactorDeps } from './interaction.ts';
import { passkeyBinding, showSecondFactor, signInAfterStep, stepExpired } from './second-step.ts';
import { recordSignInFailure } from '../events/sign-in-failure.ts';
import { pageLanguage } from '../web/respond.ts';

type Form = FastifyRequest<{
  Body: { csrf?: string | undefined; code?: string | undefined; response?: string | undefined };
}>;

/** The second-factor form: a TOTP code (six digits) or a recovery code; wrong codes slow the person down. */
export async function submitCode(
  deps: SecondFactorDeps,
  tools: InteractionTools,
  request: Form,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await tools.form(request, reply, uid, { prompt: 'login', purpose: 'mfa', page: 'verification' });
  if (!d) return reply;
  const step = await findPendingStep(deps.db, d.jti);
  if (!step) return stepExpired(tools, reply);
  const { principalId, firstFactor } = step;
  const again = (status: number, error: string) => showSecondFactor(deps, reply, tools, d, principalId, status, error);
  const { t } = pageLanguage(request, reply);
  const code = String(request.body.code ?? '').trim();
  if (!code) return again(400, t.secondStep.missingCode);
  const keys = [`mfa:${principalId}`];
  const wait = await deps.throttle.waitSeconds(keys);
  if (wait > 0) {
    reply.header('retry-after', String(wait));
    return again(429, t.secondStep.throttled(wait));
  }
  const { outcome, amr } = await checkCode(deps, request, principalId, firstFactor, code);
  if (outcome !== 'ok') {
    await deps.throttle.fail(keys);
    await recordSignInFailure(deps.db, principalId, 'second_factor', request.ip);
    return again(401, outcome === 'reused' ? t.secondStep.reusedCode : t.secondStep.wrongCode);
  }
  await deps.throttle.succeed(keys[0]!);
  const account = await deps.accounts.find(principalId);
  if (!account?.active) return stepExpired(tools, reply);
  return signInAfterStep(deps, request, reply, tools, d, principalId, amr);
}

/** Six digits are a TOTP code (`otp`), anything else a recovery code (`kba`). */
async function checkCode(
  deps: SecondFactorDeps,
  request: FastifyRequest,
  principalId: string,
  firstFactor: string,
  code: string,
): Promise<{ outcome: 'ok' | 'wrong' | 'reused'; amr: string[] }> {
  const digits = code.replace(/\s+/g, '');
  if (/^\d{6}$/.test(digits))
    return {
      outcome: await verifyTotp(deps.db, deps.secretKey, principalId, digits, request.ip),
      amr: [firstFactor, 'otp'],
    };
  return {
    outcome: (await useRecoveryCode(deps.db, deps.secretKey, principalId, code)) ? 'ok' : 'wrong',
    amr: [firstFactor, 'kba'],
  };
}

/** WebAuthn options for the passkey form's script: a usernameless sign-in, or the pending person's second step. */
export async function passkeyOptions(
  deps: SecondFactorDeps,
  tools: InteractionTools,
  rp: RelyingParty,
  request: FastifyRequest,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const fail = (status: 400 | 403, error: string, description: string) =>
    reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
  // The description is shown by the page's script: in the page's language.
  const t = pageLanguage(request, reply).t.passkeys;
  if (!tools.sameOrigin(request)) return fail(403, 'access_denied', t.anotherSite);
  const d = await tools.lookup(request, reply, uid);
  if (!d) return fail(400, 'invalid_request', t.requestExpired);
  if (d.prompt.name !== 'login' || !deps.csrf.verify(`passkey:${d.jti}`, request.headers['x-csrf-token']))
    return fail(403, 'access_denied', t.pageExpired);
  const pending = await findPending(deps.db, d.jti);
  const options = await authenticationOptions(
    deps.db,
    rp,
    pending ? 'second_factor' : 'sign_in',
    passkeyBinding(d),
    pending ?? null,
  );
  return reply.header('cache-control', 'no-store').send(options);
}

/** The passkey form: the browser's WebAuthn answer, signing in (a passkey is both factors) or completing the second step. */
export async function submitPasskey(
  deps: SecondFactorDeps,
  tools: InteractionTools,
  rp: RelyingParty,
  request: Form,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await tools.form(request, reply, uid, { prompt: 'login', purpose: 'passkey', page: 'sign-in' });
  if (!d) return reply;
  const step = await findPendingStep(deps.db, d.jti);
  const pending = step?.principalId;
  let principalId: string;
  try {
    principalId = await verifyPasskey(
      deps.db,
      rp,
      pending ? 'second_factor' : 'sign_in',
      passkeyBinding(d),
      request.body.response,
      request.ip,
    );
  } catch (err) {
    if (!(err instanceof PasskeyError)) throw err;
    request.log.info({ status: err.status, reason: err.message }, 'passkey refused');
    const said = pageLanguage(request, reply).t.passkeys[err.refusal];
    return pending
      ? showSecondFactor(deps, reply, tools, d, pending, err.status, undefined, said)
      : tools.signInAgain(request, reply, d, err.status, said);
  }
  return passkeySignedIn(deps, tools, request, reply, d, principalId, step?.firstFactor);
}

async function passkeySignedIn(
  deps: SecondFactorDeps,
  tools: InteractionTools,
  request: FastifyRequest,
  reply: FastifyReply,
  d: Interaction,
  principalId: string,
  firstFactor: string | undefined,
): Promise<FastifyReply> {
  const account = await deps.accounts.find(principalId);
  if (!account?.active || account.type !== 'human')
    return tools.signInAgain(request, reply, d, 401, pageLanguage(request, reply).t.passkeys.notRegistered);
  const amr = firstFactor !== undefined ? [firstFactor, 'hwk'] : ['hwk', 'user'];
  return signInAfterStep(deps, request, reply, tools, d, principalId, amr);
}
