import { errorBlock, escapeHtml, page, accountNav, fieldMarks } from '../web/layout.ts';
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
