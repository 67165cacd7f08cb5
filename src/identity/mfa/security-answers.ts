import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameOrigin, html } from '../web/respond.ts';
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

const ALREADY_SET_UP = 'An authenticator app is already set up. Remove it before setting up another.';

/** The authenticator setup page, unless one is set up already (409). */
export async function totpSetup(pages: SecurityPages, request: FastifyRequest, reply: FastifyReply) {
  const who = pages.person(request);
  if (!who) return pages.notHuman(reply);
  if (await hasTotp(pages.deps.db, who.account.id)) return pages.overview(reply, who, 409, { error: ALREADY_SET_UP });
  return pages.enrollPage(reply, who, 200);
}

/** The first code confirms the authenticator app; the recovery codes are shown once. */
export async function confirmTotp(pages: SecurityPages, request: Form, reply: FastifyReply): Promise<FastifyReply> {
  const who = pages.formPerson(request, reply);
  if (!who) return reply;
  const { db, secretKey } = pages.deps;
  if (await hasTotp(db, who.account.id)) return pages.overview(reply, who, 409, { error: ALREADY_SET_UP });
  const code = String(request.body.code ?? '').replace(/\s+/g, '');
  if (!/^\d{6}$/.test(code))
    return pages.enrollPage(reply, who, 400, 'Enter the 6-digit code your authenticator app shows.');
  const result = await confirmEnrollment(db, secretKey, who.account.id, String(request.body.enrollment ?? ''), code);
  if (result.ok) return html(reply, 200, recoveryCodesPage(result.recoveryCodes));
  const message =
    result.reason === 'expired'
      ? 'That setup expired. Add the account to your app again with this new code or key.'
      : result.reason === 'reused'
        ? 'That code was already used. Enter the next code your app shows.'
        : "The code is not correct. Check that the app shows the account you just added, and that your device's clock is right.";
  return pages.enrollPage(reply, who, 400, message);
}

/** Removes the authenticator app and its recovery codes, after a recent second step. */
export async function removeAuthenticator(pages: SecurityPages, request: Form, reply: FastifyReply) {
  const who = pages.formPerson(request, reply);
  if (!who || !pages.freshStep(reply, who)) return reply;
  const removed = await removeTotp(pages.deps.db, who.account.id, 'user_removed');
  return removed
    ? pages.overview(reply, who, 200, {
        notice: 'The authenticator app was removed. Signing in no longer asks for its code.',
      })
    : pages.overview(reply, who, 404, { error: 'No authenticator app is set up.' });
}

/** WebAuthn registration options for the passkey form's script (JSON: it is a fetch). */
export async function passkeyRegistration(pages: SecurityPages, request: FastifyRequest, reply: FastifyReply) {
  const refuse = (description: string) =>
    reply
      .code(403)
      .header('cache-control', 'no-store')
      .send({ error: 'access_denied', error_description: description });
  const who = pages.person(request);
  if (!who) return refuse('only people have passkeys');
  const { db, csrf, issuer } = pages.deps;
  if (!sameOrigin(request, issuer) || !csrf.verify(who.binding, request.headers['x-csrf-token']))
    return refuse('this page has expired; reload it and try again');
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
  try {
    const added = await registerPasskey(
      pages.deps.db,
      pages.rp,
      who.account.id,
      who.binding,
      request.body.response,
      request.body.name,
    );
    return pages.overview(reply, who, 200, {
      notice: `Passkey "${added.name}" added. You can sign in with it, and it serves as a second step after your password.`,
    });
  } catch (err) {
    if (!(err instanceof PasskeyError)) throw err;
    request.log.info({ status: err.status, reason: err.message }, 'passkey registration refused');
    return pages.overview(reply, who, err.status, { error: err.message });
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
  return removed
    ? pages.overview(reply, who, 200, { notice: 'The passkey was removed.' })
    : pages.overview(reply, who, 404, { error: 'No such passkey.' });
}
