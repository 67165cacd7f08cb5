import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { HttpError } from '../../kit/errors.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { TypedScope } from '../api/scope.ts';
import { Errors } from '../api/schemas.ts';
import { PERSON, PUBLIC, signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { personCaller } from '../access/person.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { CALLBACK_PATH } from '../apps/built-in-clients.ts';
import { FormGuard } from '../web/form-guard.ts';
import { formScope } from '../web/respond.ts';
import { verifyCurrentPassword } from './password-check.ts';
import { changePassword } from './password.ts';
import { humanOrRefuse, passwordForm, submitPassword, type PasswordPageDeps } from './password-page.ts';
import { SignInFlow } from './signin-flow.ts';
import { finishSignIn, startSignIn, type SignInDeps } from './signin.ts';
import { htmlAnswers } from '../web/page-answers.ts';

export interface AccountDeps extends SignInDeps {
  throttle: Throttle;
  loginSessionTtl: number;
  secretKey: Buffer;
}

const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 401, 403, 404, 409, 429);
const SignInQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: 1000 })),
  login_hint: Type.Optional(Type.String({ maxLength: 320 })),
  prompt: Type.Optional(
    Type.Literal('login', { description: 'sign in even when already signed in (signs this browser out first)' }),
  ),
});
const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 200 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 1000 })),
  iss: Type.Optional(Type.String({ maxLength: 1000 })),
});
const PasswordBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    username: Type.Optional(Type.String({ maxLength: 320 })),
    current_password: Type.Optional(Type.String({ maxLength: 1024 })),
    new_password: Type.Optional(Type.String({ maxLength: 1024 })),
    confirm_password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);

/**
 * The service's own pages outside an authorization request: the sign-in round trip for them (through the normal
 * sign-in, signin.ts), and the change-password page (password-page.ts) and its API twin. The invitation page
 * (invites/page-routes.ts), the page of a "choose your password" link (password-links/page-routes.ts) and the other
 * account pages register their own.
 */
export async function registerAccountPages(app: App, deps: AccountDeps): Promise<void> {
  const forms = new FormGuard(deps.secretKey);
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.errors.formUnread });
    signInRoutes(scope, deps, new SignInFlow(deps.secretKey, deps.issuer));
    passwordPageRoutes(scope, { ...deps, forms });
  });
  passwordApiRoute(app, deps);
}

function signInRoutes(scope: TypedScope, deps: SignInDeps, flow: SignInFlow): void {
  scope.get(
    '/signin',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'accountSignIn',
        tags,
        summary:
          "Sign in through the normal sign-in page, then return to return_to (identity's own account and invitation pages only); already signed in, straight to return_to unless prompt=login or login_hint names someone else",
        querystring: SignInQuery,
        response: Html,
      },
    },
    async (request, reply) => {
      await startSignIn(deps, flow, request, reply);
      return reply;
    },
  );
  scope.get(
    CALLBACK_PATH,
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'accountSignInCallback',
        tags,
        summary: 'The end of the sign-in round trip: back to the page that asked for it',
        querystring: CallbackQuery,
        response: Html,
      },
    },
    async (request, reply) => {
      await finishSignIn(deps, flow, request, reply);
      return reply;
    },
  );
}

function passwordPageRoutes(scope: TypedScope, deps: PasswordPageDeps): void {
  scope.get(
    '/account/password',
    {
      config: { access: signedInPage('/account/password') },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'changePasswordPage',
        tags,
        summary: 'The change-password page of the signed-in person (sign-in first when needed)',
        response: Html,
      },
    },
    async (request, reply) => {
      const who = humanOrRefuse(request, reply);
      return who ? passwordForm(deps, request, reply, who) : reply;
    },
  );
  scope.post(
    '/account/password',
    {
      config: { access: signedInForm('/account/password') },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'changePasswordForm',
        tags,
        summary: 'The change-password form (current, new and confirmed password, CSRF field)',
        body: PasswordBody,
        response: Html,
      },
    },
    async (request, reply) => {
      await submitPassword(deps, request, reply);
      return reply;
    },
  );
}

/** The same change for API clients: the signed-in person's access token (any app) and the current password. */
function passwordApiRoute(app: App, deps: AccountDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().put(
    '/api/v1/account/password',
    {
      config: { access: PERSON },
      schema: {
        operationId: 'changeOwnPassword',
        tags: ['account'],
        security: [{ personToken: [] }],
        summary:
          "Change the signed-in person's password (current_password required; other browser sessions end, tokens stay)",
        body: Type.Object(
          {
            current_password: Type.String({ minLength: 1, maxLength: 1024 }),
            new_password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    async (request, reply) => {
      const who = await deps.accounts.find(personCaller(request).subject);
      if (!who?.human) throw new HttpError(400, 'VALIDATION_ERROR', 'only people have passwords');
      const check = await verifyCurrentPassword(deps.db, deps.throttle, request, who, request.body.current_password);
      if (check.wait > 0)
        throw new HttpError(429, 'RATE_LIMITED', `too many failed attempts; retry after ${check.wait} s`, {
          headers: { 'retry-after': String(check.wait) },
        });
      if (!check.ok) throw new HttpError(403, 'FORBIDDEN', 'current_password is not correct');
      await changePassword(deps.db, who.id, request.body.new_password, undefined, deps.loginSessionTtl);
      return reply.code(204).send(null);
    },
  );
}
