import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { formScope } from '../web/respond.ts';
import { PUBLIC } from '../access/rules.ts';
import { PASSWORD_LINK_PATH } from './store.ts';
import { choosePassword, showLink, type PasswordLinkPageDeps } from './page.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 403, 404, 409, 410);
const Token = Type.String({ maxLength: 200 });

/**
 * The page a "choose your password" link opens (`GET /account/choose-password?token=`): the account's email and a new
 * password twice; the post sets it and spends the link (store.ts). No sign-in: the link is the proof, like the
 * invitation page's decline. The token is in the query only on the GET (the request log redacts `token`), and in the
 * form body after.
 */
export async function registerPasswordLinkPages(app: App, deps: PasswordLinkPageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.errors.formUnread });
    choosePasswordPage(scope, deps);
    choosePasswordForm(scope, deps);
  });
}

function choosePasswordPage(scope: TypedScope, deps: PasswordLinkPageDeps): void {
  scope.get(
    PASSWORD_LINK_PATH,
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'choosePasswordPage',
        tags,
        summary: 'The page a one-time "choose your password" link opens',
        querystring: Type.Object({ token: Type.Optional(Token) }),
        response: Html,
      },
    },
    async (request, reply) => {
      await showLink(deps, request, reply);
      return reply;
    },
  );
}

function choosePasswordForm(scope: TypedScope, deps: PasswordLinkPageDeps): void {
  scope.post(
    PASSWORD_LINK_PATH,
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'choosePasswordForm',
        tags,
        summary: 'Set the password a "choose your password" link is for, and spend the link',
        body: Type.Object(
          {
            token: Type.Optional(Token),
            csrf: Type.Optional(Type.String({ maxLength: 200 })),
            username: Type.Optional(Type.String({ maxLength: 320 })),
            new_password: Type.Optional(Type.String({ maxLength: 1024 })),
            confirm_password: Type.Optional(Type.String({ maxLength: 1024 })),
          },
          { additionalProperties: true },
        ),
        response: Html,
      },
    },
    async (request, reply) => {
      await choosePassword(deps, request, reply);
      return reply;
    },
  );
}
