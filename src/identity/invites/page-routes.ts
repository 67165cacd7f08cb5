import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import { formScope } from '../web/respond.ts';
import { PUBLIC } from '../access/rules.ts';
import { findInviteByToken } from './store.ts';
import { answerInvite, notFound, showInvite, type InvitePageDeps } from './page.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Html = htmlAnswers(200, 400, 403, 404, 409);
const Token = Type.String({ maxLength: 200 });

/**
 * The page the invitation link opens (`GET /invites/accept?token=`): the organization and role, then accept (signed in as
 * the invited person, whose verified email must match) or decline (the link alone). Invitations that can no longer be
 * used get a page naming their state.
 */
export async function registerInvitePages(app: App, deps: InvitePageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.errors.formUnread });
    invitationPage(scope, deps);
    answerInvitation(scope, deps);
  });
}

function invitationPage(scope: TypedScope, deps: InvitePageDeps): void {
  scope.get(
    '/invites/accept',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'invitationPage',
        tags,
        summary: 'The page an invitation link opens: the organization and role, accept or decline',
        querystring: Type.Object({ token: Type.Optional(Token) }),
        response: Html,
      },
    },
    async (request, reply) => {
      const token = request.query.token ?? '';
      const invite = token ? await findInviteByToken(deps.db, token) : undefined;
      if (!invite) return notFound(reply);
      return showInvite(deps, request, reply, token, invite);
    },
  );
}

function answerInvitation(scope: TypedScope, deps: InvitePageDeps): void {
  scope.post(
    '/invites/accept',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'answerInvitation',
        tags,
        summary: 'Accept (signed in as the invited person) or decline an invitation from its page',
        body: Type.Object(
          {
            token: Type.Optional(Token),
            csrf: Type.Optional(Type.String({ maxLength: 200 })),
            decision: Type.Optional(Type.String({ maxLength: 10 })),
          },
          { additionalProperties: true },
        ),
        response: Html,
      },
    },
    async (request, reply) => {
      await answerInvite(deps, request, reply);
      return reply;
    },
  );
}
