import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import { findPrincipal, normaliseEmail, type PrincipalView } from '../principals/view.ts';
import { findOrganization } from '../organizations/store.ts';
import { errorPage } from '../web/layout.ts';
import { pageLanguage, staticHtml } from '../web/respond.ts';
import type { Messages } from '../web/i18n/en.ts';
import { signInLink } from '../web/sign-in-link.ts';
import type { FormGuard } from '../web/form-guard.ts';
import { signedIn } from '../sessions/signed-in.ts';
import { inviteDonePage, invitePage, inviteStatePage } from './templates.ts';
import { acceptInvite, declineInvite, findInviteByToken, type Invite } from './store.ts';

export interface InvitePageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  issuer: string;
  forms: FormGuard;
}

const here = (token: string) => `/invites/accept?token=${encodeURIComponent(token)}`;
const csrfPurpose = (token: string) => `invite:${sha256Hex(token)}`;

/** Why this person may not accept: the invitation names another address, or theirs is not verified yet. */
function refusal(invite: Invite, who: PrincipalView, t: Messages['invites']): string | undefined {
  const email = who.human?.email;
  if (!email || normaliseEmail(email) !== normaliseEmail(invite.email))
    return t.otherAddress(invite.email, who.identifier);
  if (!who.human?.emailVerifiedAt) return t.notVerified(email);
  return undefined;
}

export function notFound(reply: FastifyReply): FastifyReply {
  const { lang, t } = pageLanguage(reply.request, reply);
  return staticHtml(reply, 404, errorPage(t.invites.notFoundTitle, t.invites.notFound, lang));
}

/** The invitation's page: its organization and role with Accept and Decline, or the state it has moved on to. */
export async function showInvite(
  deps: InvitePageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  invite: Invite,
  status = 200,
  error?: string,
): Promise<FastifyReply> {
  const loc = pageLanguage(request, reply);
  const t = loc.t.invites;
  const org = await findOrganization(deps.db, invite.organization_id);
  const orgName = org?.name ?? t.theOrganization;
  // A link opened after the invitation moved on answers 200 with its state; a form posted to one that moved meanwhile, 409.
  if (invite.status !== 'pending')
    return staticHtml(reply, status === 200 ? 200 : 409, inviteStatePage(invite.status, orgName, loc));
  const who = (await signedIn(deps.db, deps.accounts, request))?.account;
  const inviter = invite.inviter_principal_id ? await findPrincipal(deps.db, invite.inviter_principal_id) : undefined;
  return staticHtml(
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
      error: error ?? (who ? refusal(invite, who, t) : undefined),
      loc,
    }),
  );
}

/** The page's form: decline with the link alone, accept signed in as the invited person; answers the page that follows. */
export async function answerInvite(
  deps: InvitePageDeps,
  request: FastifyRequest<{
    Body: { token?: string | undefined; csrf?: string | undefined; decision?: string | undefined };
  }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const loc = pageLanguage(request, reply);
  const t = loc.t.invites;
  const token = deps.forms.linkForm(request, reply, deps.issuer, csrfPurpose, {
    page: 'invitation page',
    retry: t.openAgain,
    loc,
  });
  if (!token) return reply;
  const invite = await findInviteByToken(deps.db, token);
  if (!invite) return notFound(reply);
  const org = await findOrganization(deps.db, invite.organization_id);
  const decision = request.body.decision;
  try {
    if (decision === 'decline') {
      await declineInvite(deps.db, token);
      return staticHtml(reply, 200, inviteDonePage(false, org?.name ?? t.theOrganization, invite.role, loc));
    }
    if (decision !== 'accept') return showInvite(deps, request, reply, token, invite, 400, t.chooseAcceptDecline);
    const who = (await signedIn(deps.db, deps.accounts, request))?.account;
    if (!who) return reply.header('cache-control', 'no-store').redirect(signInLink(here(token), invite.email), 303);
    const refused = invite.status === 'pending' ? refusal(invite, who, t) : undefined;
    if (refused) return showInvite(deps, request, reply, token, invite, 403, refused);
    const { invite: accepted } = await acceptInvite(deps.db, token, who.id);
    return staticHtml(reply, 200, inviteDonePage(true, org?.name ?? t.theOrganization, accepted.role, loc));
  } catch (err) {
    // Another tab or an admin moved the invitation meanwhile (409), or it was re-sent (404): show what it is now.
    if (err instanceof HttpError && (err.statusCode === 409 || err.statusCode === 403)) {
      const now = await findInviteByToken(deps.db, token);
      if (now)
        return showInvite(
          deps,
          request,
          reply,
          token,
          now,
          err.statusCode,
          err.statusCode === 403 ? t.forSomeoneElse : undefined,
        );
    }
    if (err instanceof HttpError && err.statusCode === 404) return notFound(reply);
    throw err;
  }
}
