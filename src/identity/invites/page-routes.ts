import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { AdminScope } from '../principals/routes.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { findPrincipal, normaliseEmail, type PrincipalView } from '../principals/view.ts';
import { findOrganization } from '../organizations/store.ts';
import { errorPage } from '../pages/layout.ts';
import { html, sameOrigin, signInLink, type FormGuard } from '../account/html.ts';
import { signedIn } from '../account/session.ts';
import { inviteDonePage, invitePage, inviteStatePage } from '../account/templates.ts';
import { acceptInvite, declineInvite, findInviteByToken, type Invite } from './store.ts';
import { PUBLIC } from '../access/rules.ts';

export interface InvitePageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  issuer: string;
  forms: FormGuard;
}

const tags = ['sign-in'];
const Html = { 200: Type.String(), 400: Type.String(), 403: Type.String(), 404: Type.String(), 409: Type.String() };
const Token = Type.String({ maxLength: 200 });

/** Why this person may not accept: the invitation names another address, or theirs is not verified yet. */
function refusal(invite: Invite, who: PrincipalView): string | undefined {
  const email = who.human?.email;
  if (!email || normaliseEmail(email) !== normaliseEmail(invite.email)) {
    return `This invitation was sent to ${invite.email}, and you are signed in as ${who.identifier}. Sign in as ${invite.email} to accept it.`;
  }
  if (!who.human?.emailVerifiedAt)
    return `Your email address ${email} is not verified yet, so the invitation cannot be accepted. Verify it, then open the link again.`;
  return undefined;
}

/**
 * The page the invitation link opens (`GET /invites/accept?token=`): the organization and role, then accept (signed in as
 * the invited person, whose verified email must match) or decline (the link alone). Invitations that can no longer be
 * used get a page naming their state.
 */
export async function registerInvitePages(scope: AdminScope, deps: InvitePageDeps): Promise<void> {
  const here = (token: string) => `/invites/accept?token=${encodeURIComponent(token)}`;
  const csrfPurpose = (token: string) => `invite:${sha256Hex(token)}`;
  const notFound = (reply: FastifyReply) =>
    html(
      reply,
      404,
      errorPage(
        'Invitation not found',
        'This link opens no invitation. It may be incomplete, or the invitation was sent again with a new link: use the newest email.',
      ),
    );

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    invite: Invite,
    status = 200,
    error?: string,
  ) => {
    const org = await findOrganization(deps.db, invite.organization_id);
    const orgName = org?.name ?? 'the organization';
    // A link opened after the invitation moved on answers 200 with its state; a form posted to one that moved meanwhile, 409.
    if (invite.status !== 'pending')
      return html(reply, status === 200 ? 200 : 409, inviteStatePage(invite.status, orgName));
    const who = (await signedIn(deps.db, deps.accounts, request))?.account;
    const inviter = invite.inviter_principal_id ? await findPrincipal(deps.db, invite.inviter_principal_id) : undefined;
    return html(
      reply,
      status,
      invitePage({
        organizationName: orgName,
        role: invite.role,
        email: invite.email,
        inviterName: inviter?.displayName ?? null,
        message: invite.message,
        expiresAt: invite.expires_at,
        action: '/invites/accept',
        token,
        csrf: deps.forms.issue(request, reply, csrfPurpose(token)),
        signedInAs: who?.identifier,
        signInHref: who ? signInLink(here(token), undefined, true) : signInLink(here(token), invite.email),
        error: error ?? (who ? refusal(invite, who) : undefined),
      }),
    );
  };

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
      return show(request, reply, token, invite);
    },
  );

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
            'This form has expired or was not sent from the invitation page. Open the invitation link again.',
          ),
        );
      }
      const invite = await findInviteByToken(deps.db, token);
      if (!invite) return notFound(reply);
      const org = await findOrganization(deps.db, invite.organization_id);
      const decision = request.body.decision;
      try {
        if (decision === 'decline') {
          await declineInvite(deps.db, token);
          return html(reply, 200, inviteDonePage(false, org?.name ?? 'the organization', invite.role));
        }
        if (decision !== 'accept') return show(request, reply, token, invite, 400, 'Choose Accept or Decline.');
        const who = (await signedIn(deps.db, deps.accounts, request))?.account;
        if (!who) return reply.header('cache-control', 'no-store').redirect(signInLink(here(token), invite.email), 303);
        const refused = invite.status === 'pending' ? refusal(invite, who) : undefined;
        if (refused) return show(request, reply, token, invite, 403, refused);
        const { invite: accepted } = await acceptInvite(deps.db, token, who.id);
        return html(reply, 200, inviteDonePage(true, org?.name ?? 'the organization', accepted.role));
      } catch (err) {
        // Another tab or an admin moved the invitation meanwhile (409), or it was re-sent (404): show what it is now.
        if (err instanceof HttpError && (err.statusCode === 409 || err.statusCode === 403)) {
          const now = await findInviteByToken(deps.db, token);
          if (now)
            return show(request, reply, token, now, err.statusCode, err.statusCode === 403 ? err.message : undefined);
        }
        if (err instanceof HttpError && err.statusCode === 404) return notFound(reply);
        throw err;
      }
    },
  );
}
