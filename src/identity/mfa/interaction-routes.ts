import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../access/rules.ts';
import { relyingParty } from './passkeys.ts';
import type { InteractionTools, SecondFactorDeps } from './interaction.ts';
import { passkeyOptions, submitCode, submitPasskey } from './second-step-answers.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const Params = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    code: Type.Optional(Type.String({ maxLength: 64 })),
    response: Type.Optional(Type.String({ maxLength: 16_384 })),
  },
  { additionalProperties: true },
);
const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 401, 403, 413, 415, 429);
const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });
const Options = Type.Unknown({
  description:
    'WebAuthn `PublicKeyCredentialRequestOptionsJSON` for `navigator.credentials.get()` (as @simplewebauthn/browser takes it)',
});

/** The second step's and the passkeys' routes, in the sign-in pages' context (their form parsing and error pages). */
export function registerSecondStepRoutes(
  plain: FastifyInstance,
  deps: SecondFactorDeps,
  tools: InteractionTools,
): void {
  const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
  const rp = relyingParty(deps.issuer);

  scope.post(
    '/interaction/:uid/mfa',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'submitSecondFactor',
        tags,
        summary: 'The second-factor form: a TOTP code or a recovery code (after the password)',
        params: Params,
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await submitCode(deps, tools, request, reply, request.params.uid);
      return reply;
    },
  );

  scope.post(
    '/interaction/:uid/passkey/options',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'passkeySignInOptions',
        tags,
        summary:
          "WebAuthn options for a passkey sign-in (usernameless) or, after the password, a passkey second factor. Header `x-csrf-token`: the form's csrf value",
        params: Params,
        response: { 200: Options, 400: OAuthError, 403: OAuthError },
      },
    },
    async (request, reply) => {
      await passkeyOptions(deps, tools, rp, request, reply, request.params.uid);
      return reply;
    },
  );

  scope.post(
    '/interaction/:uid/passkey',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'submitPasskeySignIn',
        tags,
        summary:
          "The passkey form: the browser's WebAuthn answer in `response` (JSON), signing in or completing the second factor",
        params: Params,
        body: FormBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await submitPasskey(deps, tools, rp, request, reply, request.params.uid);
      return reply;
    },
  );
}
