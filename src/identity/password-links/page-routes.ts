import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { AdminScope } from '../principals/routes.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { errorPage } from '../pages/layout.ts';
import { html, sameOrigin, signInLink, type FormGuard } from '../account/html.ts';
import { PASSWORD_LINK_PATH, readLink, spendLink, type LinkState } from './store.ts';
import { choosePasswordPage, linkStatePage, passwordSetPage, type ChooseField } from './templates.ts';
import { PUBLIC } from '../access/rules.ts';

export interface PasswordLinkPageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  issuer: string;
  forms: FormGuard;
}

const tags = ['sign-in'];
const Html = {
  200: Type.String(),
  400: Type.String(),
  403: Type.String(),
  404: Type.String(),
  409: Type.String(),
  410: Type.String(),
};
const Token = Type.String({ maxLength: 200 });
// Unknown, spent and expired links each get their own status, so a script (and a test) can tell them apart too.
const STATUS = { unknown: 404, used: 409, expired: 410, replaced: 410 } as const;

/**
 * The page a "choose your password" link opens (`GET /account/choose-password?token=`): the account's email and a new
 * password twice; the post sets it and spends the link (store.ts). No sign-in: the link is the proof, like the
 * invitation page's decline. The token is in the query only on the GET (the request log redacts `token`), and in the
 * form body after.
 */
export async function registerPasswordLinkPages(scope: AdminScope, deps: PasswordLinkPageDeps): Promise<void> {
  const csrfPurpose = (token: string) => `password-link:${sha256Hex(token)}`;
  const gone = (reply: FastifyReply, link: Exclude<LinkState, { state: 'open' }>) =>
    html(reply, STATUS[link.state], linkStatePage(link.state));
  const form = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    email: string,
    status = 200,
    error?: string,
    invalid?: ChooseField[],
  ) =>
    html(
      reply,
      status,
      choosePasswordPage({
        action: PASSWORD_LINK_PATH,
        token,
        email,
        csrf: deps.forms.issue(request, reply, csrfPurpose(token)),
        error,
        invalid,
      }),
    );

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
      const token = request.query.token ?? '';
      const link: LinkState = token ? await readLink(deps.db, token) : { state: 'unknown' };
      if (link.state !== 'open') return gone(reply, link);
      return form(request, reply, token, link.email);
    },
  );

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
      const token = request.body.token ?? '';
      if (
        !sameOrigin(request, deps.issuer) ||
        !token ||
        !deps.forms.verify(request, csrfPurpose(token), request.body.csrf)
      ) {
        return html(
          reply,
          403,
          errorPage(
            'Request refused',
            'This form has expired or was not sent from the password page. Open the link again.',
          ),
        );
      }
      const link = await readLink(deps.db, token);
      if (link.state !== 'open') return gone(reply, link);
      const next = String(request.body.new_password ?? '');
      const confirm = String(request.body.confirm_password ?? '');
      if (next.length < MIN_PASSWORD_LENGTH)
        return form(
          request,
          reply,
          token,
          link.email,
          400,
          `The new password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
          ['new'],
        );
      if (next !== confirm)
        return form(request, reply, token, link.email, 400, 'The two passwords differ: type the same password twice.', [
          'confirm',
        ]);
      const done = await spendLink(deps.db, token, next);
      // Another tab spent it (or it expired) between the read and the post.
      if (done.state !== 'set') return gone(reply, done);
      // The principal's cached view still says "email not verified"; the next sign-in must see it verified.
      deps.accounts.invalidate(done.principalId);
      return html(
        reply,
        200,
        passwordSetPage(done.email, link.continueTo ?? signInLink('/account/password', done.email)),
      );
    },
  );
}
