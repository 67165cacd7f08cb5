import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameOrigin, html, pageLanguage } from '../web/respond.ts';
import { confirmEnrollment, hasTotp, removeTotp } from './totp.ts';
import { PasskeyError, registerPasskey, registrationOptions, removePasskey } from './passkeys.ts';
import { recoveryCodesPage } from './templates.ts';
import type { SecurityPages } from './security-pages.ts';

type Form = FastifyRequest<{
  Body: {
    csrf?: string | undefined;
    code?: string | undefined;
    enrollment?: string | undefined;
    name?: string | undefined;
    response?: string | undefined;
  };
}>;

/** The authenticator setup page, unless one is set up already (409). */
export async function totpSetup(pages: SecurityPages, request: FastifyRequest, reply: FastifyReply) {
  const who = pages.person(request);
  if (!who) return pages.notHuman(reply);
  const { t } = pageLanguage(request, reply);
  if (await hasTotp(pages.deps.db, who.account.id))
    return pages.overview(reply, who, 409, { error: t.totp.alreadySetUp });
  return pages.enrollPage(reply, who, 200);
}

/** The first code confirms the authenticator app; the recovery codes are shown once. */
export async function confirmTotp(pages: SecurityPages, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = pages.formPerson(request, reply);
  if (!who) return reply;
  const { db, secretKey } = pages.deps;
  const loc = pageLanguage(request, reply);
  const t = loc.t.totp;
  if (await hasTotp(db, who.account.id)) return pages.overview(reply, who, 409, { error: t.alreadySetUp });
  const code = String(request.body.code ?? '').replace(/\s+/g, '');
  if (!/^\d{6}$/.test(code)) return pages.enrollPage(reply, who, 400, t.sixDigits);
  const result = await confirmEnrollment(db, secretKey, who.account.id, String(request.body.enrollment ?? ''), code);
  if (result.ok) return html(reply, 200, recoveryCodesPage(result.recoveryCodes, loc));
  const message = result.reason === 'expired' ? t.expired : result.reason === 'reused' ? t.reused : t.wrong;
  return pages.enrollPage(reply, who, 400, message);
}

/** Removes the authenticator app and its recovery codes, after a recent second step. */
export async function removeAuthenticator(pages: SecurityPages, request: Form, reply: FastifyReply) {
  const who = pages.formPerson(request, reply);
  if (!who || !pages.freshStep(reply, who)) return reply;
  const removed = await removeTotp(pages.deps.db, who.account.id, 'user_removed');
  const { t } = pageLanguage(request, reply);
  return removed
    ? pages.overview(reply, who, 200, { notice: t.totp.removed })
    : pages.overview(reply, who, 404, { error: t.totp.noneSetUp });
}

/** WebAuthn registration options for the passkey form's script (JSON: it is a fetch). */
export async function passkeyRegistration(pages: SecurityPages, request: FastifyRequest, reply: FastifyReply) {
  const refuse = (description: string) =>
    reply
      .code(403)
      .header('cache-control', 'no-store')
      .send({ error: 'access_denied', error_description: description });
  const { t } = pageLanguage(request, reply);
  const who = pages.person(request);
  if (!who) return refuse(t.passkeys.onlyPeople);
  const { db, csrf, issuer } = pages.deps;
  if (!sameOrigin(request, issuer) || !csrf.verify(who.binding, request.headers['x-csrf-token']))
    return refuse(t.passkeys.pageExpired);
  const email = who.account.human?.email ?? who.account.identifier;
  const options = await registrationOptions(
    db,
    pages.rp,
    { id: who.account.id, name: email, displayName: who.account.displayName },
    who.binding,
  );
  return reply.header('cache-control', 'no-store').send(options);
}

/** Registers a passkey from the browser's WebAuthn answer. */
export async function addPasskey(pages: SecurityPages, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = pages.formPerson(request, reply);
  if (!who) return reply;
  const { t } = pageLanguage(request, reply);
  try {
    const added = await registerPasskey(
      pages.deps.db,
      pages.rp,
      who.account.id,
      who.binding,
      request.body.response,
      request.body.name,
    );
    return pages.overview(reply, who, 200, { notice: t.totp.passkeyAdded(added.name ?? t.security.passkey) });
  } catch (err) {
    if (!(err instanceof PasskeyError)) throw err;
    request.log.info({ status: err.status, reason: err.message }, 'passkey registration refused');
    return pages.overview(reply, who, err.status, { error: t.passkeys[err.refusal] });
  }
}

/** Removes one of the person's passkeys, after a recent second step. */
export async function dropPasskey(
  pages: SecurityPages,
  request: Form & FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
) {
  const who = pages.formPerson(request, reply);
  if (!who || !pages.freshStep(reply, who)) return reply;
  const removed = await removePasskey(pages.deps.db, who.account.id, request.params.id, 'user_removed');
  const { t } = pageLanguage(request, reply);
  return removed
    ? pages.overview(reply, who, 200, { notice: t.totp.passkeyRemoved })
    : pages.overview(reply, who, 404, { error: t.totp.noSuchPasskey });
}
