import { accountNav, errorBlock, escapeHtml, page, type PageOptions } from '../web/layout.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import { FORGOT_PASSWORD_PATH } from '../web/sign-in-link.ts';
import { describeScope } from '../web/scopes.ts';
import { passkeyForm, PASSKEY_SCRIPTS } from '../mfa/templates.ts';

export interface SignInView {
  action: string;
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
  appName?: string | undefined;
  /** The passkey sign-in button (usernameless), when passkeys are on. */
  passkey?: { action: string; optionsUrl: string; csrf: string; error?: string | undefined } | undefined;
  /** The app's brand colour (its brand_color setting), else the service's own. */
  brandColor?: string | undefined;
  /** The app's (or the named organization's) logo, its name as the alt text. */
  logo?: PageOptions['logo'];
  /** Where "Email me a sign-in code" posts the form (the app allows sign-in by emailed code), else absent. */
  emailCode?: string | undefined;
  /** More ways to sign in (the social login buttons), after the password form. */
  extra?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

const ENGLISH: Localized = { lang: 'en', t: LANGUAGES.en };

/** The "forgot password" page, with the way back to this sign-in page (the interaction's, without its `/login`). */
function forgotLink(v: SignInView): string {
  const back = v.action.replace(/\/login$/, '');
  return `${FORGOT_PASSWORD_PATH}?back=${encodeURIComponent(back)}`;
}

export function signInPage(v: SignInView): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.signIn;
  const invalid = v.error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
  return page({
    lang,
    brand: v.brandColor,
    logo: v.logo,
    title: v.error || v.passkey?.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
${v.appName ? `<p>${escapeHtml(t.continueTo)} <strong>${escapeHtml(v.appName)}</strong></p>` : ''}
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<label for="email">${escapeHtml(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(v.email ?? '')}"${v.email ? '' : ' autofocus'}${invalid}>
<label for="password">${escapeHtml(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${v.email ? ' autofocus' : ''}${invalid}>
<button class="primary" type="submit">${escapeHtml(t.submit)}</button>${
      v.emailCode
        ? `\n<p class="hint" id="code-hint">${escapeHtml(t.codeHint)}</p>
<button class="secondary alt-way" type="submit" formaction="${escapeHtml(v.emailCode)}" aria-describedby="code-hint">${escapeHtml(t.emailCode)}</button>`
        : ''
    }
</form>
<p><a href="${escapeHtml(forgotLink(v))}">${escapeHtml(t.forgot)}</a></p>${v.extra ? `\n${v.extra}` : ''}
${
  v.passkey
    ? `<h2 class="alt">${escapeHtml(t.passkeyHeading)}</h2>
${passkeyForm({ ...v.passkey, label: t.passkey, kind: 'authenticate', id: 'passkey-signin', messages: all.passkeys })}
${PASSKEY_SCRIPTS}`
    : ''
}`,
  });
}

export interface ConsentView {
  action: string;
  csrf: string;
  appName: string;
  appDescription?: string | null | undefined;
  scopes: string[];
  accountLabel: string;
  brandColor?: string | undefined;
  logo?: PageOptions['logo'];
  loc?: Localized | undefined;
}

export function consentPage(v: ConsentView): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.consent;
  const items = v.scopes.length
    ? `<ul class="scopes">${v.scopes.map((s) => `<li>${escapeHtml(describeScope(s, all.scopes))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>`
    : `<p>${escapeHtml(t.nothingMore)}</p>`;
  return page({
    lang,
    brand: v.brandColor,
    logo: v.logo,
    title: t.title(v.appName),
    body: `<h1>${escapeHtml(t.headingBefore)} ${escapeHtml(v.appName)} ${escapeHtml(t.headingAfter)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.appDescription ? `<p>${escapeHtml(v.appDescription)}</p>` : ''}
<h2>${escapeHtml(v.appName)} ${escapeHtml(t.asking)}</h2>
${items}
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="primary" type="submit" name="decision" value="allow">${escapeHtml(t.allow)}</button>
<button class="secondary" type="submit" name="decision" value="deny">${escapeHtml(t.deny)}</button>
</form>
<p class="hint">${escapeHtml(t.withdraw)}</p>`,
  });
}

export function signOutPage(v: {
  action: string;
  csrf: string;
  accountLabel?: string | undefined;
  loc?: Localized | undefined;
}): string {
  const { lang, t: all } = v.loc ?? ENGLISH;
  const t = all.signOut;
  if (!v.accountLabel)
    return page({
      lang,
      title: t.signedOutTitle,
      body: `<h1>${escapeHtml(t.signedOutTitle)}</h1>\n<p>${escapeHtml(t.notSignedIn)}</p>\n<p><a href="/signin?return_to=%2Faccount%2Fpassword">${escapeHtml(t.signInToAccount)}</a></p>`,
    });
  return page({
    lang,
    title: t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="primary" type="submit" autofocus>${escapeHtml(t.submit)}</button>
</form>
${accountNav('/signout', all.accountNav)}`,
  });
}
