import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { SIGNED_IN_SECURITY, signedInForm, signedInPage } from '../access/rules.ts';
import { formScope } from '../web/respond.ts';
import { emailAddressPage, sendVerifyCode, verifyCode, type VerifyPageDeps } from './verify-page.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 401, 403, 429, 503);
const Body = Type.Object(
  { csrf: Type.Optional(Type.String({ maxLength: 200 })), code: Type.Optional(Type.String({ maxLength: 20 })) },
  { additionalProperties: true },
);

/** The signed-in person's email page: the address, verified or not, and verifying it with a mailed code. */
export async function registerEmailVerification(app: App, deps: VerifyPageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.errors.formUnread });
    scope.get(
      '/account/email',
      {
        config: { access: signedInPage('/account/email') },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'emailAddressPage',
          tags,
          summary: "The signed-in person's email address, whether it is verified, and a way to verify it",
          response: Html,
        },
      },
      async (request, reply) => emailAddressPage(deps, request, reply),
    );
    scope.post(
      '/account/email/send',
      {
        config: { access: signedInForm('/account/email') },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'sendEmailVerificationCode',
          tags,
          summary: "Mail a six-digit code to the signed-in person's address (a few an hour)",
          body: Body,
          response: Html,
        },
      },
      async (request, reply) => {
        await sendVerifyCode(deps, request, reply);
        return reply;
      },
    );
    scope.post(
      '/account/email/verify',
      {
        config: { access: signedInForm('/account/email') },
        schema: {
          security: SIGNED_IN_SECURITY,
          operationId: 'verifyEmailAddress',
          tags,
          summary: 'Verify the address with the mailed code (five wrong tries spend it)',
          body: Body,
          response: Html,
        },
      },
      async (request, reply) => {
        await verifyCode(deps, request, reply);
        return reply;
      },
    );
  });
}
