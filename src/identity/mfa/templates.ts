import encodeQR from 'qr';
import { errorBlock, escapeHtml, page, accountNav } from '../web/layout.ts';
import { LANGUAGES, type Localized } from '../web/i18n/negotiate.ts';
import type { PasskeyView } from './passkeys.ts';
import type { Messages } from '../web/i18n/en.ts';

// The scripts of passkey forms, served from identity's own origin (the CSP allows 'self' scripts only).
export const PASSKEY_SCRIPTS =
  '<script src="/assets/simplewebauthn-browser.js" defer></script>\n<script src="/assets/passkey.js" defer></script>';

/**
 * A form that runs a WebAuthn ceremony: the script fetches the options from `optionsUrl`, asks the
 * browser, puts its answer in the hidden `response` field and submits. Failures are written into the
 * alert region named by `data-error`, so they are announced.
 */
export function passkeyForm(v: {
  action: string;
  optionsUrl: string;
  csrf: string;
  label: string;
  kind: 'register' | 'authenticate';
  id: string;
  nameField?: boolean;
  /** The name field's label and hint, in the page's language. */
  nameLabel?: { label: string; hint: string };
  error?: string | undefined;
  /** The page's passkey messages: what the script says when the browser's ceremony fails. */
  messages?: Messages['passkeys'];
}): string {
  const name = v.nameLabel ?? { label: LANGUAGES.en.security.passkeyName, hint: LANGUAGES.en.security.passkeyNameHint };
  const m = v.messages ?? LANGUAGES.en.passkeys;
  const said = JSON.stringify({
    cancelled: m.cancelled,
    alreadyRegistered: m.alreadyRegistered,
    unavailable: m.unavailable,
    failed: m.failed,
    unsupported: m.unsupported,
    requestFailed: m.requestFailed,
  });
  const errorId = `${v.id}-error`;
  return `<form method="post" action="${escapeHtml(v.action)}" id="${v.id}" data-passkey="${v.kind}" data-options="${escapeHtml(v.optionsUrl)}" data-error="${errorId}" data-messages="${escapeHtml(said)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="response" value="">
${
  v.nameField
    ? `<label for="${v.id}-name">${escapeHtml(name.label)} <span class="hint">${escapeHtml(name.hint)}</span></label>
<input id="${v.id}-name" name="name" type="text" maxlength="100" autocomplete="off" aria-describedby="${errorId}">`
    : ''
}
<p class="error" role="alert" id="${errorId}"${v.error ? '' : ' hidden'}>${escapeHtml(v.error ?? '')}</p>
<button class="${v.kind === 'register' ? 'primary' : 'secondary'} passkey" type="submit">${escapeHtml(v.label)}</button>
</form>`;
}

export interface SecondFactorView {
  action: string;
  csrf: string;
  totp: boolean;
  /** `error`: a refused passkey, shown beside its button (the code field is not at fault). */
  passkey?: { action: string; optionsUrl: string; csrf: string; error?: string | undefined } | undefined;
  error?: string | undefined;
  accountLabel: string;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

/** The step after the password: a code from the authenticator app or a recovery code, or a passkey. */
export function secondFactorPage(v: SecondFactorView): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.secondStep;
  const invalid = v.error
    ? ' aria-invalid="true" aria-describedby="form-error code-hint"'
    : ' aria-describedby="code-hint"';
  const codeForm = v.totp
    ? `<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<label for="code">${escapeHtml(t.code)}</label>
<p class="hint" id="code-hint">${escapeHtml(t.codeHint)}</p>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" autocapitalize="off" spellcheck="false" maxlength="32" required autofocus${invalid}>
<button class="primary" type="submit">${escapeHtml(t.verify)}</button>
</form>`
    : '';
  const passkey = v.passkey
    ? `${v.totp ? `<h2 class="alt">${escapeHtml(t.passkeyHeading)}</h2>` : `<p>${escapeHtml(t.passkeyOnly)}</p>`}
${passkeyForm({ ...v.passkey, label: t.passkey, kind: 'authenticate', id: 'passkey-second', messages: all.passkeys })}`
    : '';
  return page({
    lang,
    title: v.error || v.passkey?.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>. ${escapeHtml(t.oneMore)}</p>
${errorBlock(v.error)}
${codeForm}
${passkey}
${v.passkey ? PASSKEY_SCRIPTS : ''}`,
  });
}

export interface SecurityView {
  accountLabel: string;
  csrf: string;
  totp: boolean;
  recoveryLeft: number;
  passkeys: PasskeyView[];
  notice?: string | undefined;
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

/** The person's sign-in security: the authenticator app, recovery codes and passkeys. */
export function securityPage(v: SecurityView): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.security;
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">`;
  const totp = v.totp
    ? `<p>${escapeHtml(t.appOn)}</p>
<p>${escapeHtml(t.recoveryLeft)} <strong>${v.recoveryLeft}</strong>.</p>
<form method="post" action="/account/security/totp/remove">${csrf}<button class="secondary danger" type="submit">${escapeHtml(t.removeApp)}</button></form>`
    : `<p>${escapeHtml(t.appOff)}</p>
<p><a class="button" href="/account/security/totp">${escapeHtml(t.setUpApp)}</a></p>`;
  const list = v.passkeys.length
    ? `<ul class="passkeys">${v.passkeys
        .map(
          (
            p,
          ) => `<li><span>${escapeHtml(p.name ?? t.passkey)} <span class="hint">(${escapeHtml(t.added(p.created_at.slice(0, 10)))}${p.last_used_at ? escapeHtml(t.lastUsed(p.last_used_at.slice(0, 10))) : ''})</span></span>
<form method="post" action="/account/security/passkeys/${escapeHtml(p.id)}/remove">${csrf}<button class="secondary" type="submit" aria-label="${escapeHtml(t.removePasskey(p.name ?? t.passkey))}">${escapeHtml(t.remove)}</button></form></li>`,
        )
        .join('\n')}</ul>`
    : `<p>${escapeHtml(t.noPasskeys)}</p>`;
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.signedInAs)} <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.notice ? `<p class="notice" role="status">${escapeHtml(v.notice)}</p>` : ''}
${errorBlock(v.error)}
<h2>${escapeHtml(t.appHeading)}</h2>
${totp}
<h2>${escapeHtml(t.passkeysHeading)}</h2>
${list}
${passkeyForm({ action: '/account/security/passkeys', optionsUrl: '/account/security/passkeys/options', csrf: v.csrf, label: t.addPasskey, kind: 'register', id: 'passkey-add', nameField: true, nameLabel: { label: t.passkeyName, hint: t.passkeyNameHint }, messages: all.passkeys })}
${accountNav('/account/security', all.accountNav)}
${PASSKEY_SCRIPTS}`,
  });
}

export interface TotpEnrollView {
  uri: string;
  secret: string;
  csrf: string;
  credentialId: string;
  error?: string | undefined;
  /** The page's language (web/i18n/), English when absent. */
  loc?: Localized | undefined;
}

/** Groups of four, as authenticator apps show secrets for typing. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

export function totpEnrollPage(v: TotpEnrollView): string {
  const { lang, t: all } = v.loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.totp;
  const svg = encodeQR(v.uri, 'svg', { ecc: 'medium', border: 4, optimize: true });
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  const invalid = v.error
    ? ' aria-invalid="true" aria-describedby="form-error code-hint"'
    : ' aria-describedby="code-hint"';
  return page({
    lang,
    title: v.error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
${errorBlock(v.error)}
<ol class="steps">
<li>${escapeHtml(t.step1)}</li>
<li>${escapeHtml(t.step2)}
<img class="qr" src="${src}" width="228" height="228" alt="${escapeHtml(t.qrAlt)}"></li>
<li>${escapeHtml(t.step3)}
<p class="secret" id="setup-key"><code>${escapeHtml(grouped(v.secret))}</code></p></li>
<li>${escapeHtml(t.step4)}</li>
</ol>
<form method="post" action="/account/security/totp" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<input type="hidden" name="enrollment" value="${escapeHtml(v.credentialId)}">
<label for="code">${escapeHtml(t.code)}</label>
<p class="hint" id="code-hint">${escapeHtml(t.codeHint)}</p>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="10" required autofocus${invalid}>
<button class="primary" type="submit">${escapeHtml(t.turnOn)}</button>
</form>
<p><a href="/account/security">${escapeHtml(t.back)}</a></p>`,
  });
}

export function recoveryCodesPage(codes: string[], loc?: Localized): string {
  const { lang, t: all } = loc ?? { lang: 'en', t: LANGUAGES.en };
  const t = all.totp;
  return page({
    lang,
    title: t.recoveryTitle,
    body: `<h1>${escapeHtml(t.recoveryTitle)}</h1>
<p role="status">${escapeHtml(t.recoveryDone)}</p>
<p>${escapeHtml(t.recoveryText)}</p>
<ul class="codes" aria-label="${escapeHtml(t.recoveryList)}">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ul>
<p><a class="button" href="/account/security">${escapeHtml(t.saved)}</a></p>`,
  });
}
