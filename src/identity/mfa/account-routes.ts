import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { signedInFetch, signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { formScope } from '../web/respond.ts';
import { SECURITY, SecurityPages, type AccountDeps } from './security-pages.ts';
import {
  addPasskey,
  confirmTotp,
  dropPasskey,
  passkeyRegistration,
  removeAuthenticator,
  totpSetup,
} from './security-answers.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const security = SIGNED_IN_SECURITY;
const Html = htmlAnswers(200, 303, 400, 401, 403, 404, 409, 413, 415);
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

/**
 * The signed-in person's sign-in security pages (`/account/security`): set up or remove the
 * authenticator app (TOTP) and its recovery codes, add and remove passkeys. They need the browser's
 * login session (`__Host-svc_login`); forms carry a CSRF token bound to it.
 */
export async function registerAccountSecurity(app: App, deps: AccountDeps): Promise<void> {
  const pages = new SecurityPages(deps);
  await app.register(async (plain) => {
    const scope = formScope(plain, {
      retry: (t) => t.errors.formUnread,
      bodyLimit: 32 * 1024,
      ownMessages: true,
    });
    securityPageRoute(scope, pages);
    authenticatorRoutes(scope, pages);
    passkeyRoutes(scope, pages);
  });
}

function securityPageRoute(scope: TypedScope, pages: SecurityPages): void {
  scope.get(
    '/account/security',
    {
      config: { access: signedInPage(SECURITY.path) },
      schema: {
        security,
        operationId: 'securityPage',
        tags,
        summary: "The signed-in person's sign-in security page: authenticator app, recovery codes, passkeys",
        response: Html,
      },
    },
    async (request, reply) => {
      const who = pages.person(request);
      await (who ? pages.overview(reply, who) : pages.notHuman(reply));
      return reply;
    },
  );
}

/** The authenticator app (TOTP): its setup page, the first code that confirms it, removing it. */
function authenticatorRoutes(scope: TypedScope, pages: SecurityPages): void {
  scope.get(
    '/account/security/totp',
    {
      config: { access: signedInPage('/account/security/totp') },
      schema: {
        security,
        operationId: 'totpEnrollPage',
        tags,
        summary: 'Set up an authenticator app: QR code, setup key and the first code',
        response: Html,
      },
    },
    async (request, reply) => {
      await totpSetup(pages, request, reply);
      return reply;
    },
  );
  scope.post(
    '/account/security/totp',
    {
      config: { access: signedInForm(SECURITY.path) },
      schema: {
        security,
        operationId: 'confirmTotp',
        tags,
        summary: 'Confirm the authenticator app with its first code; shows the recovery codes once',
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await confirmTotp(pages, request, reply);
      return reply;
    },
  );
  scope.post(
    '/account/security/totp/remove',
    {
      config: { access: signedInForm(SECURITY.path) },
      schema: {
        security,
        operationId: 'removeTotp',
        tags,
        summary: 'Remove the authenticator app and its recovery codes',
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await removeAuthenticator(pages, request, reply);
      return reply;
    },
  );
}

/** Passkeys: the registration options' fetch, registering one, removing one. */
function passkeyRoutes(scope: TypedScope, pages: SecurityPages): void {
  scope.post(
    '/account/security/passkeys/options',
    {
      config: { access: signedInFetch(SECURITY.path) },
      schema: {
        security,
        operationId: 'passkeyRegistrationOptions',
        tags,
        summary: "WebAuthn options for registering a passkey. Header `x-csrf-token`: the form's csrf value",
        response: { 200: Options, 401: OAuthError, 403: OAuthError },
      },
    },
    async (request, reply) => {
      await passkeyRegistration(pages, request, reply);
      return reply;
    },
  );
  scope.post(
    '/account/security/passkeys',
    {
      config: { access: signedInForm(SECURITY.path) },
      schema: {
        security,
        operationId: 'registerPasskey',
        tags,
        summary: "Register a passkey: the browser's WebAuthn answer in `response` (JSON), an optional `name`",
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await addPasskey(pages, request, reply);
      return reply;
    },
  );
  scope.post(
    '/account/security/passkeys/:id/remove',
    {
      config: { access: signedInForm(SECURITY.path) },
      schema: {
        security,
        operationId: 'removePasskey',
        tags,
        summary: "Remove one of the person's passkeys",
        params: PasskeyParams,
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await dropPasskey(pages, request, reply);
      return reply;
    },
  );
}
