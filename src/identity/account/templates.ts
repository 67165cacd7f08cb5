import { errorBlock, escapeHtml, page, accountNav, fieldMarks } from '../web/layout.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';

/** Which fields an error concerns, so each is marked aria-invalid and described by the message. */
export type PasswordField = 'current' | 'new' | 'confirm';

export interface ChangePasswordView {
  action: string;
  csrf: string;
  accountLabel: string;
  error?: string | undefined;
  invalid?: PasswordField[] | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

export function changePasswordPage(v: ChangePasswordView): string {
  const { attrs, focus } = fieldMarks<PasswordField>(v.invalid, 'current');
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.password;
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.accountLabel)}" hidden>
<label for="current_password">${escapeHtml(t.current)}</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required${attrs('current')}${focus('current')}>
<label for="new_password">${escapeHtml(t.new)}</label>
<p class="hint" id="new-hint">${escapeHtml(t.minLength(MIN_PASSWORD_LENGTH))}</p>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs('new', 'new-hint')}${focus('new')}>
<label for="confirm_password">${escapeHtml(t.confirm)}</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required${attrs('confirm')}${focus('confirm')}>
<button class="primary" type="submit">${escapeHtml(t.submit)}</button>
</form>
<p class="hint">${escapeHtml(t.othersSignedOut)}</p>
${accountNav('/account/password', all.accountNav)}`,
  });
}

export function passwordChangedPage(accountLabel: string, loc?: Localized): string {
  const { lang, t: all } = loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.password;
  return page({
    lang,
    title: t.changedTitle,
    body: `<h1>${escapeHtml(t.changedTitle)}</h1>
<p role="status">${escapeHtml(t.changedBefore)} <strong>${escapeHtml(accountLabel)}</strong> ${escapeHtml(t.changedAfter)}</p>`,
  });
}
