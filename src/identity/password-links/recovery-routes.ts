import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { PUBLIC } from '../access/rules.ts';
import { formScope } from '../web/respond.ts';
import { FORGOT_PASSWORD_PATH } from '../web/sign-in-link.ts';
import { requestReset, showForgotPassword, type RecoveryPageDeps } from './recovery-page.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 403, 429);
const Back = Type.String({ maxLength: 200, description: 'the sign-in page to go back to (`/interaction/…`)' });

/**
 * "Forgot password" (`/account/forgot-password`): the page asks for an email address and answers the same whatever it
 * is; the mailed link opens the choose-password page of password links (page-routes.ts), as a reset.
 */
export async function registerRecoveryPages(app: App, deps: RecoveryPageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.errors.formUnread });
    scope.get(
      FORGOT_PASSWORD_PATH,
      {
        config: { access: PUBLIC },
        schema: {
          operationId: 'forgotPasswordPage',
          tags,
          summary: 'The "forgot password" page: an email address to mail a one-time link to',
          querystring: Type.Object({ back: Type.Optional(Back) }),
          response: Html,
        },
      },
      async (request, reply) => showForgotPassword(deps, request, reply),
    );
    scope.post(
      FORGOT_PASSWORD_PATH,
      {
        config: { access: PUBLIC },
        schema: {
          operationId: 'forgotPasswordForm',
          tags,
          summary:
            'Mail a one-time link to choose a new password, if the address has an account; the same answer either way, throttled per address and per client',
          body: Type.Object(
            {
              csrf: Type.Optional(Type.String({ maxLength: 200 })),
              email: Type.Optional(Type.String({ maxLength: 1024 })),
              back: Type.Optional(Back),
            },
            { additionalProperties: true },
          ),
          response: Html,
        },
      },
      async (request, reply) => {
        await requestReset(deps, request, reply);
        return reply;
      },
    );
  });
}
