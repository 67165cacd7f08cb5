import { errorBlock, escapeHtml, page } from '../web/layout.ts';

export interface InviteView {
  organizationName: string;
  role: string;
  email: string;
  inviterName: string | null;
  message: string | null;
  expiresAt: string;
  action: string;
  token: string;
  csrf: string;
  /** The signed-in person, if any: accept is offered then; otherwise a link to sign in. */
  signedInAs?: string | undefined;
  signInHref: string;
  error?: string | undefined;
}

function readableTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function invitePage(v: InviteView): string {
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">\n<input type="hidden" name="token" value="${escapeHtml(v.token)}">`;
  const who = v.signedInAs
    ? `<p>You are signed in as <strong>${escapeHtml(v.signedInAs)}</strong>. <a href="${escapeHtml(v.signInHref)}">Sign in as someone else</a></p>`
    : `<p>To accept, <a href="${escapeHtml(v.signInHref)}">sign in as ${escapeHtml(v.email)}</a> first.</p>`;
  return page({
    title: v.error ? `Error: Invitation to ${v.organizationName}` : `Invitation to ${v.organizationName}`,
    body: `<h1>Join ${escapeHtml(v.organizationName)}</h1>
${errorBlock(v.error)}
<p>${v.inviterName ? `<strong>${escapeHtml(v.inviterName)}</strong> invites you` : 'You are invited'} to join <strong>${escapeHtml(v.organizationName)}</strong> as <strong>${escapeHtml(v.role)}</strong>.</p>
<dl>
<dt>Sent to</dt><dd>${escapeHtml(v.email)}</dd>
<dt>Role</dt><dd>${escapeHtml(v.role)}</dd>
<dt>Valid until</dt><dd>${escapeHtml(readableTime(v.expiresAt))}</dd>
</dl>
${v.message ? `<h2>Message</h2>\n<p>${escapeHtml(v.message)}</p>` : ''}
${who}
<form method="post" action="${escapeHtml(v.action)}">
${hidden}
${v.signedInAs ? `<button class="primary" type="submit" name="decision" value="accept"${v.error ? '' : ' autofocus'}>Accept</button>` : ''}
<button class="secondary" type="submit" name="decision" value="decline"${v.signedInAs ? '' : ' style="margin-left:0"'}>Decline</button>
</form>`,
  });
}

const STATE_TEXT: Record<string, [string, string]> = {
  accepted: ['Invitation already accepted', 'This invitation has been accepted. Sign in to use the organization.'],
  declined: [
    'Invitation declined',
    'This invitation was declined. Ask the organization for a new one if you change your mind.',
  ],
  expired: ['Invitation expired', 'This invitation has expired. Ask the organization to send it again.'],
  revoked: ['Invitation withdrawn', 'This invitation was withdrawn by the organization.'],
};

/** The page of an invitation that can no longer be acted on, named by its state. */
export function inviteStatePage(status: string, organizationName: string): string {
  const [title, text] = STATE_TEXT[status] ?? ['Invitation unavailable', 'This invitation can no longer be used.'];
  return page({
    title,
    body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p>Organization: <strong>${escapeHtml(organizationName)}</strong></p>`,
  });
}

export function inviteDonePage(accepted: boolean, organizationName: string, role: string): string {
  return accepted
    ? page({
        title: `You joined ${organizationName}`,
        body: `<h1>You joined ${escapeHtml(organizationName)}</h1>\n<p role="status">You are now a member of <strong>${escapeHtml(organizationName)}</strong> as <strong>${escapeHtml(role)}</strong>.</p>`,
      })
    : page({
        title: 'Invitation declined',
        body: `<h1>Invitation declined</h1>\n<p role="status">You declined the invitation to <strong>${escapeHtml(organizationName)}</strong>.</p>`,
      });
}
