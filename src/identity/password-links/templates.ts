import { errorBlock, escapeHtml, page, fieldMarks } from '../web/layout.ts';
import { MIN_PASSWORD_LENGTH } from '../principals/store.ts';
import { FORGOT_PASSWORD_PATH } from '../web/sign-in-link.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

const ENGLISH: Localized = { lang: 'en', t: LANGUAGES.en };

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
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

/** The form the link opens, in the look of the sign-in and change-password pages. */
export function choosePasswordPage(v: ChoosePasswordView): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.passwordLink;
  const { attrs, focus } = fieldMarks<ChooseField>(v.invalid, 'new');
  const heading = v.reset ? t.chooseNew : t.chooseYours;
  return page({
    lang,
    title: v.error ? `${t.errorPrefix}${heading}` : heading,
    body: `<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(t.forAccount)} <strong>${escapeHtml(v.email)}</strong>.</p>
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(v.token)}">
<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.email)}" hidden>
<label for="new_password">${escapeHtml(t.new)}</label>
<p class="hint" id="new-hint">${escapeHtml(t.minLength(MIN_PASSWORD_LENGTH))}</p>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs('new', 'new-hint')}${focus('new')}>
<label for="confirm_password">${escapeHtml(t.confirm)}</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required${attrs('confirm')}${focus('confirm')}>
<button class="primary" type="submit">${escapeHtml(t.submit)}</button>
</form>
<p class="hint">${escapeHtml(v.reset ? t.onceReset : t.once)}</p>`,
  });
}

export function passwordSetPage(email: string, signInHref: string, reset = false, loc: Localized = ENGLISH): string {
  const t = loc.t.passwordLink;
  const title = reset ? t.changedTitle : t.setTitle;
  return page({
    lang: loc.lang,
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p role="status">${escapeHtml(t.theAccount)} <strong>${escapeHtml(email)}</strong> ${escapeHtml(reset ? t.changed : t.set)}</p>
<p><a class="button" href="${escapeHtml(signInHref)}">${escapeHtml(t.signIn)}</a></p>`,
  });
}

type Key = keyof Messages['passwordLink'];

const STATE_TEXT: Record<'used' | 'expired' | 'replaced' | 'unknown', [Key, Key]> = {
  used: ['usedTitle', 'used'],
  expired: ['expiredTitle', 'expired'],
  replaced: ['replacedTitle', 'replaced'],
  unknown: ['unknownTitle', 'unknown'],
};

// A mailed reset link was asked for by the person: they ask again, rather than ask "whoever sent it".
const RESET_TEXT: Record<'used' | 'expired' | 'replaced', [Key, Key]> = {
  used: ['usedTitle', 'resetUsed'],
  expired: ['expiredTitle', 'resetExpired'],
  replaced: ['replacedTitle', 'resetReplaced'],
};

/** The page of a link that can no longer set a password, named by why; a reset link's page leads to a new one. */
export function linkStatePage(state: keyof typeof STATE_TEXT, reset = false, loc: Localized = ENGLISH): string {
  const t = loc.t.passwordLink;
  if (reset && state !== 'unknown') {
    const [title, text] = RESET_TEXT[state].map((k) => String(t[k]));
    return page({
      lang: loc.lang,
      title: title!,
      body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${FORGOT_PASSWORD_PATH}">${escapeHtml(t.askAgain)}</a></p>`,
    });
  }
  const [title, text] = STATE_TEXT[state].map((k) => String(t[k]));
  return page({ lang: loc.lang, title: title!, body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>` });
}
