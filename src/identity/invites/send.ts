import type { Database } from '../../kit/db.ts';
import { findPrincipal } from '../principals/view.ts';
import type { Mailer } from './mailer.ts';
import type { Invite } from './store.ts';

export interface InviteDeps {
  db: Database;
  mailer: Mailer;
  /** Where the mailed link points; the token is added as `?token=`. */
  inviteLink: string;
  inviteTtl: number;
}

function linkFor(base: string, token: string): string {
  const u = new URL(base);
  u.searchParams.set('token', token);
  return u.href;
}

/** Mails an invitation's link (with its token) when mail is configured; the link is answered once either way. */
export async function sendInvite(
  deps: InviteDeps,
  invite: Invite,
  token: string,
  organizationName: string,
): Promise<{ invite: Invite; link: string; mailed: boolean }> {
  const link = linkFor(deps.inviteLink, token);
  const inviter = invite.inviter_principal_id ? await findPrincipal(deps.db, invite.inviter_principal_id) : undefined;
  const mailed = await deps.mailer.sendInvite({
    to: invite.email,
    organizationName,
    inviterName: inviter?.displayName ?? null,
    message: invite.message,
    link,
    expiresAt: invite.expires_at,
  });
  return { invite, link, mailed };
}
