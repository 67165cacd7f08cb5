import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage, escapeHtml, page } from '../web/layout.ts';
import { signInLink } from '../web/sign-in-link.ts';
import { AccountGuard, type AccountPage } from '../access/account-guard.ts';
import { csrfBinding, type SignedIn } from '../sessions/signed-in.ts';
import { signedInFetch, signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { signedInAs } from '../access/signed-in.ts';
import { formScope, html, sameOrigin } from '../web/respond.ts';
import { confirmEnrollment, hasTotp, pendingEnrollment, removeTotp } from './totp.ts';
import { recoveryCodesLeft } from './recovery-codes.ts';
import {
  listPasskeys,
  PasskeyError,
  registerPasskey,
  registrationOptions,
  relyingParty,
  removePasskey,
} from './passkeys.ts';
import { recoveryCodesPage, securityPage, totpEnrollPage } from './templates.ts';

export interface AccountDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
}

const tags = ['sign-in'];
const Html = {
  200: Type.String(),
  303: Type.Null(),
  400: Type.String(),
  401: Type.String(),
  403: Type.String(),
  404: Type.String(),
  409: Type.String(),
  413: Type.String(),
  415: Type.String(),
};
const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    code: Type.Optional(Type.String({ maxLength: 64 })),
    enrollment: Type.Optional(Type.String({ maxLength: 64 })),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    response: Type.Optional(Type.String({ maxLength: 16_384 })),
  },
  { additionalProperties: true },
);
const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });
const Options = Type.Unknown({
  description:
    'WebAuthn `PublicKeyCredentialCreationOptionsJSON` for `navigator.credentials.create()` (as @simplewebauthn/browser takes it)',
});
const PasskeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

interface Person {
  account: PrincipalView;
  csrf: string;
  binding: string;
  /** When the login session's sign-in passed a second step, if it did. */
  secondFactorAt: Date | undefined;
}

const SECURITY: AccountPage = { path: '/account/security', purpose: 'security', name: 'the sign-in security page' };

/**
 * How long after a second step a factor may be removed. Older (or a session without one) and the person signs in
 * again with their second step: a borrowed or stolen login session alone must not strip the account's protection.
 */
const FRESH_STEP_SECONDS = 10 * 60;

/**
 * The signed-in person's sign-in security pages (`/account/security`): set up or remove the
 * authenticator app (TOTP) and its recovery codes, add and remove passkeys. They need the browser's
 * login session (`__Host-svc_login`); forms carry a CSRF token bound to it.
 */
export async function registerAccountSecurity(app: App, deps: AccountDeps): Promise<void> {
  const rp = relyingParty(deps.issuer);
  const guard = new AccountGuard(deps);

  // The passkey options' fetch and the forms need the same Person: the account and the CSRF binding of this session.
  const personOf = (who: SignedIn | undefined): Person | undefined =>
    who?.account.type === 'human'
      ? {
          account: who.account,
          binding: csrfBinding(SECURITY.purpose, who),
          csrf: guard.csrf(who, SECURITY),
          secondFactorAt: who.session.secondFactorAt,
        }
      : undefined;
  const person = (request: FastifyRequest) => personOf(signedInAs(request));
  const notHuman = (reply: FastifyReply) =>
    html(reply, 400, errorPage('No sign-in security here', 'Only people have second factors.'));

  /** Whether the session's second step is recent enough to remove a factor; else answers with the page asking for one. */
  function freshStep(reply: FastifyReply, who: Person): boolean {
    const at = who.secondFactorAt?.getTime();
    if (at !== undefined && Date.now() - at < FRESH_STEP_SECONDS * 1000) return true;
    html(
      reply,
      403,
      page({
        title: 'Confirm it is you',
        body: `<h1>Confirm it is you</h1>
<p>Removing a sign-in method needs a recent second step (a code from your authenticator app, a recovery code or a passkey). Nothing was removed.</p>
<p><a href="${escapeHtml(signInLink('/account/security', who.account.human?.email, true))}">Sign in again to confirm</a>, then remove it on the sign-in security page within ${FRESH_STEP_SECONDS / 60} minutes.</p>`,
      }),
    );
    return false;
  }

  /** A posted form: signed in, same origin, right CSRF token. */
  async function formPerson(
    request: FastifyRequest<{ Body: { csrf?: string | undefined } }>,
    reply: FastifyReply,
  ): Promise<Person | undefined> {
    const who = guard.form(request, reply, SECURITY);
    if (who && who.account.type !== 'human')
      html(reply, 400, errorPage('No sign-in security here', 'Only people have second factors.'));
    return personOf(who);
  }

  async function overview(
    reply: FastifyReply,
    who: Person,
    status = 200,
    extra: { notice?: string; error?: string } = {},
  ): Promise<FastifyReply> {
    const id = who.account.id;
    const [totp, recoveryLeft, passkeys] = await Promise.all([
      hasTotp(deps.db, id),
      recoveryCodesLeft(deps.db, id),
      listPasskeys(deps.db, id),
    ]);
    return html(
      reply,
      status,
      securityPage({ accountLabel: who.account.identifier, csrf: who.csrf, totp, recoveryLeft, passkeys, ...extra }),
    );
  }

  async function enrollPage(reply: FastifyReply, who: Person, status: number, error?: string): Promise<FastifyReply> {
    const pending = await pendingEnrollment(deps.db, deps.secretKey, who.account.id, who.account.identifier, rp.name);
    return html(reply, status, totpEnrollPage({ ...pending, csrf: who.csrf, error }));
  }

  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: 'The form could not be read. Go back and try again.',
      bodyLimit: 32 * 1024,
      ownMessages: true,
    });

    scope.get(
      '/account/security',
      {
        config: { access: signedInPage(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'securityPage',
          tags,
          summary: "The signed-in person's sign-in security page: authenticator app, recovery codes, passkeys",
          response: Html,
        },
      },
      async (request, reply) => {
        const who = person(request);
        return who ? overview(reply, who) : notHuman(reply);
      },
    );

    scope.get(
      '/account/security/totp',
      {
        config: { access: signedInPage('/account/security/totp') },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'totpEnrollPage',
          tags,
          summary: 'Set up an authenticator app: QR code, setup key and the first code',
          response: Html,
        },
      },
      async (request, reply) => {
        const who = person(request);
        if (!who) return notHuman(reply);
        if (await hasTotp(deps.db, who.account.id))
          return overview(reply, who, 409, {
            error: 'An authenticator app is already set up. Remove it before setting up another.',
          });
        return enrollPage(reply, who, 200);
      },
    );

    scope.post(
      '/account/security/totp',
      {
        config: { access: signedInForm(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'confirmTotp',
          tags,
          summary: 'Confirm the authenticator app with its first code; shows the recovery codes once',
          body: FormBody,
          response: Html,
        },
      },
      async (request, reply) => {
        const who = await formPerson(request, reply);
        if (!who) return reply;
        if (await hasTotp(deps.db, who.account.id))
          return overview(reply, who, 409, {
            error: 'An authenticator app is already set up. Remove it before setting up another.',
          });
        const code = String(request.body.code ?? '').replace(/\s+/g, '');
        if (!/^\d{6}$/.test(code))
          return enrollPage(reply, who, 400, 'Enter the 6-digit code your authenticator app shows.');
        const result = await confirmEnrollment(
          deps.db,
          deps.secretKey,
          who.account.id,
          String(request.body.enrollment ?? ''),
          code,
        );
        if (result.ok) return html(reply, 200, recoveryCodesPage(result.recoveryCodes));
        const message =
          result.reason === 'expired'
            ? 'That setup expired. Add the account to your app again with this new code or key.'
            : result.reason === 'reused'
              ? 'That code was already used. Enter the next code your app shows.'
              : "The code is not correct. Check that the app shows the account you just added, and that your device's clock is right.";
        return enrollPage(reply, who, 400, message);
      },
    );

    scope.post(
      '/account/security/totp/remove',
      {
        config: { access: signedInForm(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'removeTotp',
          tags,
          summary: 'Remove the authenticator app and its recovery codes',
          body: FormBody,
          response: Html,
        },
      },
      async (request, reply) => {
        const who = await formPerson(request, reply);
        if (!who || !freshStep(reply, who)) return reply;
        const removed = await removeTotp(deps.db, who.account.id, 'user_removed');
        return removed
          ? overview(reply, who, 200, {
              notice: 'The authenticator app was removed. Signing in no longer asks for its code.',
            })
          : overview(reply, who, 404, { error: 'No authenticator app is set up.' });
      },
    );

    scope.post(
      '/account/security/passkeys/options',
      {
        config: { access: signedInFetch(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'passkeyRegistrationOptions',
          tags,
          summary: "WebAuthn options for registering a passkey. Header `x-csrf-token`: the form's csrf value",
          response: { 200: Options, 401: OAuthError, 403: OAuthError },
        },
      },
      async (request, reply) => {
        const refuse = (description: string) =>
          reply
            .code(403)
            .header('cache-control', 'no-store')
            .send({ error: 'access_denied', error_description: description });
        const who = person(request);
        if (!who) return refuse('only people have passkeys');
        if (!sameOrigin(request, deps.issuer) || !deps.csrf.verify(who.binding, request.headers['x-csrf-token']))
          return refuse('this page has expired; reload it and try again');
        const email = who.account.human?.email ?? who.account.identifier;
        const options = await registrationOptions(
          deps.db,
          rp,
          { id: who.account.id, name: email, displayName: who.account.displayName },
          who.binding,
        );
        return reply.header('cache-control', 'no-store').send(options);
      },
    );

    scope.post(
      '/account/security/passkeys',
      {
        config: { access: signedInForm(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'registerPasskey',
          tags,
          summary: "Register a passkey: the browser's WebAuthn answer in `response` (JSON), an optional `name`",
          body: FormBody,
          response: Html,
        },
      },
      async (request, reply) => {
        const who = await formPerson(request, reply);
        if (!who) return reply;
        try {
          const added = await registerPasskey(
            deps.db,
            rp,
            who.account.id,
            who.binding,
            request.body.response,
            request.body.name,
          );
          return overview(reply, who, 200, {
            notice: `Passkey "${added.name}" added. You can sign in with it, and it serves as a second step after your password.`,
          });
        } catch (err) {
          if (!(err instanceof PasskeyError)) throw err;
          request.log.info({ status: err.status, reason: err.message }, 'passkey registration refused');
          return overview(reply, who, err.status, { error: err.message });
        }
      },
    );

    scope.post(
      '/account/security/passkeys/:id/remove',
      {
        config: { access: signedInForm(SECURITY.path) },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'removePasskey',
          tags,
          summary: "Remove one of the person's passkeys",
          params: PasskeyParams,
          body: FormBody,
          response: Html,
        },
      },
      async (request, reply) => {
        const who = await formPerson(request, reply);
        if (!who || !freshStep(reply, who)) return reply;
        const removed = await removePasskey(deps.db, who.account.id, request.params.id, 'user_removed');
        return removed
          ? overview(reply, who, 200, { notice: 'The passkey was removed.' })
          : overview(reply, who, 404, { error: 'No such passkey.' });
      },
    );
  });
}
