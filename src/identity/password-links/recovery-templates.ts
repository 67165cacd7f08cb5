import { errorBlock, escapeHtml, page } from '../web/layout.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';

const ENGLISH: Localized = { lang: 'en', t: LANGUAGES.en };

export interface ForgotView {
  action: string;
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
  /** The sign-in page this came from (an authorization request's), else the account sign-in. */
  back: string;
  loc?: Localized | undefined;
}

/** "Forgot password": the email address, and a button that mails a link. */
export function forgotPasswordPage(v: ForgotView): string {
  const invalid = v.error
    ? ' aria-invalid="true" aria-describedby="form-error email-hint"'
    : ' aria-describedby="email-hint"';
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.forgot;
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="back" value="${escapeHtml(v.back)}">
<label for="email">${escapeHtml(t.email)}</label>
<p class="hint" id="email-hint">${escapeHtml(t.hint)}</p>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(v.email ?? '')}"${invalid}>
<button class="primary" type="submit">${escapeHtml(t.submit)}</button>
</form>
<p><a href="${escapeHtml(v.back)}">${escapeHtml(t.back)}</a></p>`,
  });
}

/** The one answer to every address: whether it has an account is for its mailbox to know. */
export function linkRequestedPage(v: {
  email: string;
  back: string;
  minutes: number;
  loc?: Localized | undefined;
}): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.forgot;
  return page({
    lang,
    title: t.sentTitle,
    body: `<h1>${escapeHtml(t.sentTitle)}</h1>
<p role="status">${escapeHtml(t.sentBefore)} <strong>${escapeHtml(v.email)}</strong>, ${escapeHtml(t.sentAfter)}</p>
<p>${escapeHtml(t.sentRules(v.minutes))}</p>
<p class="hint">${escapeHtml(t.nothingArrived)}</p>
<p><a href="${escapeHtml(v.back)}">${escapeHtml(t.back)}</a></p>`,
  });
}
