import { errorBlock, escapeHtml, page, fieldMarks } from '../web/layout.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { FORGOT_PASSWORD_PATH } from '../web/sign-in-link.ts';

export type ChooseField = 'new' | 'confirm';

export interface ChoosePasswordView {
  action: string;
  token: string;
  csrf: string;
  email: string;
  error?: string | undefined;
  invalid?: ChooseField[] | undefined;
  /** A "forgot password" link: a new password, replacing the one the person has (if any). */
  reset?: boolean | undefined;
}

/** The form the link opens, in the look of the sign-in and change-password pages. */
export function choosePasswordPage(v: ChoosePasswordView): string {
  const { attrs, focus } = fieldMarks<ChooseField>(v.invalid, 'new');
  const heading = v.reset ? 'Choose a new password' : 'Choose your password';
  return page({
    title: v.error ? `Error: ${heading}` : heading,
    body: `<h1>${heading}</h1>
<p>For the account <strong>${escapeHtml(v.email)}</strong>.</p>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(v.token)}">
<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.email)}" hidden>
<label for="new_password">New password</label>
<p class="hint" id="new-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs('new', 'new-hint')}${focus('new')}>
<label for="confirm_password">The new password again</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required${attrs('confirm')}${focus('confirm')}>
<button class="primary" type="submit">Set password</button>
</form>
<p class="hint">This link works once. After it, sign in with your email address and this password${v.reset ? '; you are signed out everywhere, and apps must sign you in again' : ''}.</p>`,
  });
}

export function passwordSetPage(email: string, signInHref: string, reset = false): string {
  if (reset)
    return page({
      title: 'Password changed',
      body: `<h1>Password changed</h1>
<p role="status">The account <strong>${escapeHtml(email)}</strong> has a new password. Every session and app sign-in of the account has ended: sign in again with the new password (and your second step, if you have one).</p>
<p><a class="button" href="${escapeHtml(signInHref)}">Sign in</a></p>`,
    });
  return page({
    title: 'Password set',
    body: `<h1>Password set</h1>
<p role="status">The account <strong>${escapeHtml(email)}</strong> has its password. Sign in with your email address and this password.</p>
<p><a class="button" href="${escapeHtml(signInHref)}">Sign in</a></p>`,
  });
}

const STATE_TEXT = {
  used: [
    'Link already used',
    'This link has set a password already and works only once. Sign in with that password, or ask whoever sent the link for help.',
  ],
  expired: ['Link expired', 'This link has expired. Ask whoever sent it for a new one.'],
  replaced: [
    'Link replaced',
    'A newer link was made for this account, so this one no longer works. Use the newest link you were sent, or ask whoever sent it.',
  ],
  unknown: ['Link not found', 'This link opens nothing. It may be incomplete: copy the whole link and try again.'],
} as const;

// A mailed reset link was asked for by the person: they ask again, rather than ask "whoever sent it".
const RESET_TEXT = {
  used: [
    'Link already used',
    'This link has set a new password already and works only once. Sign in with that password, or ask for a new link.',
  ],
  expired: ['Link expired', 'This link has expired. Ask for a new one.'],
  replaced: [
    'Link replaced',
    'A newer link was sent for this account, so this one no longer works. Use the newest mail.',
  ],
} as const;

/** The page of a link that can no longer set a password, named by why; a reset link's page leads to a new one. */
export function linkStatePage(state: keyof typeof STATE_TEXT, reset = false): string {
  if (reset && state !== 'unknown') {
    const [title, text] = RESET_TEXT[state];
    return page({
      title,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${FORGOT_PASSWORD_PATH}">Ask for a new link</a></p>`,
    });
  }
  const [title, text] = STATE_TEXT[state];
  return page({ title, body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>` });
}
