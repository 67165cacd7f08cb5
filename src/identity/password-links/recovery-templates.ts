import { errorBlock, escapeHtml, page } from '../web/layout.ts';

export interface ForgotView {
  action: string;
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
  /** The sign-in page this came from (an authorization request's), else the account sign-in. */
  back: string;
}

/** "Forgot password": the email address, and a button that mails a link. */
export function forgotPasswordPage(v: ForgotView): string {
  const invalid = v.error
    ? ' aria-invalid="true" aria-describedby="form-error email-hint"'
    : ' aria-describedby="email-hint"';
  return page({
    title: v.error ? 'Error: Forgot your password?' : 'Forgot your password?',
    body: `<h1>Forgot your password?</h1>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="back" value="${escapeHtml(v.back)}">
<label for="email">Email address</label>
<p class="hint" id="email-hint">We mail a link to choose a new password to this address, if it has an account.</p>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(v.email ?? '')}"${invalid}>
<button class="primary" type="submit">Send the link</button>
</form>
<p><a href="${escapeHtml(v.back)}">Back to sign in</a></p>`,
  });
}

/** The one answer to every address: whether it has an account is for its mailbox to know. */
export function linkRequestedPage(v: { email: string; back: string; minutes: number }): string {
  return page({
    title: 'Check your email',
    body: `<h1>Check your email</h1>
<p role="status">If an account uses <strong>${escapeHtml(v.email)}</strong>, a link to choose a new password is on its way there.</p>
<p>The link works once, for ${v.minutes} minutes. Choosing a new password signs you out everywhere; a second step you have set up is still asked when you sign in.</p>
<p class="hint">Nothing arrived after a few minutes? Look in the spam folder, check the address, or ask again.</p>
<p><a href="${escapeHtml(v.back)}">Back to sign in</a></p>`,
  });
}
