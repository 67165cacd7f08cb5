import { accountNav, errorBlock, escapeHtml, page } from '../web/layout.ts';
import { CODE_TTL_SECONDS } from './store.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

const MINUTES = CODE_TTL_SECONDS / 60;

function codeField(invalid: boolean, t: Messages['email'] = LANGUAGES.en.email): string {
  const marks = invalid
    ? ' aria-invalid="true" aria-describedby="form-error code-hint"'
    : ' aria-describedby="code-hint"';
  return `<label for="code">${escapeHtml(t.code)}</label>
<p class="hint" id="code-hint">${escapeHtml(t.codeHint(MINUTES))}</p>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="12" required autofocus${marks}>`;
}

/** Sign-in by code, second page: the same words for every address, a field for the code. */
export function signInCodePage(v: {
  action: string;
  csrf: string;
  email: string;
  back: string;
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.emailCode;
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
${errorBlock(v.error)}
<p role="status">${escapeHtml(t.sentBefore)} <strong>${escapeHtml(v.email)}</strong>${escapeHtml(t.sentAfter)}</p>
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="email" value="${escapeHtml(v.email)}">
${codeField(!!v.error, all.email)}
<button class="primary" type="submit">${escapeHtml(t.submit)}</button>
</form>
<p class="hint">${escapeHtml(t.nothingArrived)}</p>
<p><a href="${escapeHtml(v.back)}">${escapeHtml(t.back)}</a></p>`,
  });
}

/** The account's email page: the address, whether it is verified, and the way to verify it. */
export function emailPage(v: {
  email: string;
  verified: boolean;
  csrf: string;
  stage: 'start' | 'code' | 'done';
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.email;
  const status = v.verified
    ? `<p><span class="badge">${escapeHtml(t.verified)}</span> ${escapeHtml(t.verifiedText)}</p>`
    : `<p>${escapeHtml(t.notVerified)}</p>`;
  const form =
    v.verified || v.stage === 'done'
      ? ''
      : v.stage === 'code'
        ? `<p role="status">${escapeHtml(t.codeSent)} <strong>${escapeHtml(v.email)}</strong>.</p>
<form method="post" action="/account/email/verify" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
${codeField(!!v.error, t)}
<button class="primary" type="submit">${escapeHtml(t.verify)}</button>
</form>
<form method="post" action="/account/email/send">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="secondary" type="submit">${escapeHtml(t.sendNew)}</button>
</form>`
        : `<form method="post" action="/account/email/send">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="primary" type="submit">${escapeHtml(t.sendCode)}</button>
</form>`;
  const title = v.stage === 'done' ? t.doneTitle : t.title;
  return page({
    lang,
    title: v.error ? `${t.errorPrefix}${title}` : title,
    body: `<h1>${escapeHtml(title)}</h1>
${errorBlock(v.error)}
<p>${escapeHtml(t.address)} <strong>${escapeHtml(v.email)}</strong></p>
${v.stage === 'done' ? `<p role="status"><span class="badge">${escapeHtml(t.verified)}</span> ${escapeHtml(t.thanks)}</p>` : status}
${form}
${accountNav('/account/email', all.accountNav)}`,
  });
}
