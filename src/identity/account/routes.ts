import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { PERSON, PUBLIC, signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { personCaller } from '../access/person.ts';
import { signedInAs } from '../access/signed-in.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { normaliseEmail, type PrincipalView } from '../principals/view.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { errorPage } from '../web/layout.ts';
import { LOGIN_COOKIE, clearedLoginCookie, loginCookie } from '../sessions/cookie.ts';
import { readCookie } from '../web/cookies.ts';
import { endLoginSession } from '../sessions/store.ts';
import type { ProviderHolder } from '../oidc/mount.ts';
import { endProviderSession, spendAuthorizationCode } from '../oidc/store.ts';
import { Errors } from '../api/schemas.ts';
import { FormGuard } from '../web/form-guard.ts';
import { safeReturn } from '../web/sign-in-link.ts';
import { formScope, sameOrigin, staticHtml } from '../web/respond.ts';
import { signedIn } from '../sessions/signed-in.ts';
import { verifyCurrentPassword } from './password-check.ts';
import { SignInFlow } from './signin-flow.ts';
import { CALLBACK_PATH } from '../apps/built-in-clients.ts';
import { changePassword } from './password.ts';
import { changePasswordPage, passwordChangedPage, type PasswordField } from './templates.ts';

export interface AccountDeps {
  db: Database;
  accounts: PrincipalDirectory;
  throttle: Throttle;
  issuer: string;
  loginSessionTtl: number;
  secretKey: Buffer;
  holder: ProviderHolder;
}

const tags = ['sign-in'];
const Html = {
  200: Type.String(),
  400: Type.String(),
  401: Type.String(),
  403: Type.String(),
  404: Type.String(),
  409: Type.String(),
  429: Type.String(),
};
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
 * sign-in), the change-password page and its API twin, the invitation page (invites/page-routes.ts) and the page of a
 * "choose your password" link (password-links/page-routes.ts).
 */
export async function registerAccountPages(app: App, deps: AccountDeps): Promise<void> {
  const forms = new FormGuard(deps.secretKey);
  const flow = new SignInFlow(deps.secretKey, deps.issuer);
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: 'The form could not be read. Go back and try again.' });

    // Signing in goes through the normal sign-in (an authorization request of the built-in account client), so these
    // pages get exactly what the authorization pages do: the same page, throttle, login session and any second factor.
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
        const returnTo = safeReturn(request.query.return_to, deps.issuer);
        // A live session is kept: a link to an account page must not throw it away. Only "sign in as someone else" (prompt=login),
        // or a hint naming another person (an invitation or password link for them), signs in afresh.
        const who = await signedIn(deps.db, deps.accounts, request);
        const hint = request.query.login_hint ? normaliseEmail(request.query.login_hint) : undefined;
        if (
          who &&
          request.query.prompt !== 'login' &&
          (!hint || hint === normaliseEmail(who.account.human?.email ?? ''))
        ) {
          return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
        }
        const { location, cookie } = flow.start(returnTo, request.query.login_hint);
        // The browser is signed out first (both sessions, as /signout does): signing in as someone else inside a live
        // provider session would make the provider end that session mid-way, and the new login session with it.
        const loginToken = readCookie(request.headers.cookie, LOGIN_COOKIE);
        await endLoginSession(deps.db, loginToken);
        const sessionCookie = deps.holder.current.cookieName('session');
        const providerSession = readCookie(request.headers.cookie, sessionCookie);
        if (providerSession) await endProviderSession(deps.db, providerSession);
        const cleared =
          loginToken || providerSession
            ? [
                clearedLoginCookie(),
                `${sessionCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
                `${sessionCookie}.sig=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
              ]
            : [];
        return reply
          .header('set-cookie', [...cleared, cookie])
          .header('cache-control', 'no-store')
          .redirect(location, 303);
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
        const returnTo = flow.finish(request, request.query.state);
        reply.header('set-cookie', flow.clearedCookie());
        // The code proves nothing more than the login session the sign-in just made; it is spent so it cannot be used later.
        if (request.query.code) await spendAuthorizationCode(deps.db, request.query.code);
        if (!returnTo)
          return staticHtml(
            reply,
            400,
            errorPage(
              'Sign-in expired',
              'This sign-in was started in another tab or has expired. Open the page you wanted again.',
            ),
          );
        if (request.query.error || !request.query.code)
          return staticHtml(
            reply,
            400,
            errorPage('Sign-in not completed', 'The sign-in did not finish. Open the page you wanted again to retry.'),
          );
        return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
      },
    );

    const passwordForm = (
      request: FastifyRequest,
      reply: FastifyReply,
      who: PrincipalView,
      status = 200,
      error?: string,
      invalid?: PasswordField[],
    ) =>
      staticHtml(
        reply,
        status,
        changePasswordPage({
          action: '/account/password',
          csrf: forms.issue(request, reply, `password:${who.id}`),
          accountLabel: who.identifier,
          error,
          invalid,
        }),
      );

    // Signed out, the access check has answered already (the sign-in for the page, a 401 page for the form).
    const humanOrRefuse = (request: FastifyRequest, reply: FastifyReply): PrincipalView | undefined => {
      const who = signedInAs(request).account;
      if (!who.human) {
        staticHtml(reply, 400, errorPage('No password here', 'Only people have passwords.'));
        return undefined;
      }
      return who;
    };

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
        return who ? passwordForm(request, reply, who) : reply;
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
        const who = humanOrRefuse(request, reply);
        if (!who) return reply;
        if (!sameOrigin(request, deps.issuer) || !forms.verify(request, `password:${who.id}`, request.body.csrf)) {
          return staticHtml(
            reply,
            403,
            errorPage(
              'Request refused',
              'This form has expired or was not sent from the change-password page. Go back and try again.',
            ),
          );
        }
        const current = String(request.body.current_password ?? '');
        const next = String(request.body.new_password ?? '');
        const confirm = String(request.body.confirm_password ?? '');
        if (!current) return passwordForm(request, reply, who, 400, 'Enter your current password.', ['current']);
        if (next.length < MIN_PASSWORD_LENGTH)
          return passwordForm(
            request,
            reply,
            who,
            400,
            `The new password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
            ['new'],
          );
        if (next !== confirm)
          return passwordForm(request, reply, who, 400, 'The confirmation does not match the new password.', [
            'confirm',
          ]);
        const check = await verifyCurrentPassword(deps.db, deps.throttle, request, who, current);
        if (check.wait > 0) {
          reply.header('retry-after', String(check.wait));
          return passwordForm(
            request,
            reply,
            who,
            429,
            `Too many failed attempts. Wait ${check.wait} second${check.wait === 1 ? '' : 's'} and try again.`,
            ['current'],
          );
        }
        if (!check.ok)
          return passwordForm(request, reply, who, 401, 'The current password is not correct.', ['current']);
        const token = await changePassword(
          deps.db,
          who.id,
          next,
          { ip: request.ip, userAgent: request.headers['user-agent'] },
          deps.loginSessionTtl,
        );
        reply.header('set-cookie', loginCookie(token!, deps.loginSessionTtl));
        return staticHtml(reply, 200, passwordChangedPage(who.identifier));
      },
    );
  });

  // The same change for API clients: the signed-in person's access token (any app) and the current password.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.put(
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
