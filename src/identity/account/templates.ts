import { errorBlock, escapeHtml, page, accountNav, fieldMarks } from '../pages/layout.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';

/** Which fields an error concerns, so each is marked aria-invalid and described by the message. */
export type PasswordField = 'current' | 'new' | 'confirm';

export interface ChangePasswordView {
  action: string;
  csrf: string;
  accountLabel: string;
  error?: string | undefined;
  invalid?: PasswordField[] | undefined;
}

export function changePasswordPage(v: ChangePasswordView): string {
  const { attrs, focus } = fieldMarks<PasswordField>(v.invalid, 'current');
  return page({
    title: v.error ? 'Error: Change your password' : 'Change your password',
    body: `<h1>Change your password</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.accountLabel)}" hidden>
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required${attrs('current')}${focus('current')}>
<label for="new_password">New password</label>
<p class="hint" id="new-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs('new', 'new-hint')}${focus('new')}>
<label for="confirm_password">Confirm the new password</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required${attrs('confirm')}${focus('confirm')}>
<button class="primary" type="submit">Change password</button>
</form>
<p class="hint">Your other browsers are signed out when the password changes; applications you use keep their access until you withdraw it.</p>
${accountNav('/account/password')}`,
  });
}

export function passwordChangedPage(accountLabel: string): string {
  return page({
    title: 'Password changed',
    body: `<h1>Password changed</h1>
<p role="status">The password of <strong>${escapeHtml(accountLabel)}</strong> is changed. Your other browsers were signed out.</p>`,
  });
}

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
