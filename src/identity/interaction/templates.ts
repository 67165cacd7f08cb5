import { accountNav, errorBlock, escapeHtml, page, type PageOptions } from '../web/layout.ts';
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
}

/** The "forgot password" page, with the way back to this sign-in page (the interaction's, without its `/login`). */
function forgotLink(v: SignInView): string {
  const back = v.action.replace(/\/login$/, '');
  return `${FORGOT_PASSWORD_PATH}?back=${encodeURIComponent(back)}`;
}

export function signInPage(v: SignInView): string {
  const invalid = v.error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
  return page({
    brand: v.brandColor,
    logo: v.logo,
    title: v.error || v.passkey?.error ? 'Error: Sign in' : 'Sign in',
    body: `<h1>Sign in</h1>
${v.appName ? `<p>to continue to <strong>${escapeHtml(v.appName)}</strong></p>` : ''}
${errorBlock(v.error)}
<form method="post" action="${escapeHtml(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(v.email ?? '')}"${v.email ? '' : ' autofocus'}${invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${v.email ? ' autofocus' : ''}${invalid}>
<button class="primary" type="submit">Sign in</button>${
      v.emailCode
        ? `\n<p class="hint" id="code-hint">No password, or forgot it? We can email you a code to sign in with instead.</p>
<button class="secondary alt-way" type="submit" formaction="${escapeHtml(v.emailCode)}" aria-describedby="code-hint">Email me a sign-in code</button>`
        : ''
    }
</form>
<p><a href="${escapeHtml(forgotLink(v))}">Forgot your password?</a></p>${v.extra ? `\n${v.extra}` : ''}
${
  v.passkey
    ? `<h2 class="alt">Or use a passkey</h2>
${passkeyForm({ ...v.passkey, label: 'Use a passkey', kind: 'authenticate', id: 'passkey-signin' })}
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
}

export function consentPage(v: ConsentView): string {
  const items = v.scopes.length
    ? `<ul class="scopes">${v.scopes.map((s) => `<li>${escapeHtml(describeScope(s))} <span class="hint">(${escapeHtml(s)})</span></li>`).join('')}</ul>`
    : '<p>No additional access is requested.</p>';
  return page({
    brand: v.brandColor,
    logo: v.logo,
    title: `Allow ${v.appName} access`,
    body: `<h1>Allow ${escapeHtml(v.appName)} to access your account?</h1>
<p>Signed in as <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
${v.appDescription ? `<p>${escapeHtml(v.appDescription)}</p>` : ''}
<h2>${escapeHtml(v.appName)} is asking to:</h2>
${items}
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="hint">You can withdraw this access later; the application then loses its tokens.</p>`,
  });
}

export function signOutPage(v: { action: string; csrf: string; accountLabel?: string | undefined }): string {
  if (!v.accountLabel)
    return page({
      title: 'Signed out',
      body: '<h1>Signed out</h1>\n<p>You are not signed in.</p>\n<p><a href="/signin?return_to=%2Faccount%2Fpassword">Sign in to your account</a></p>',
    });
  return page({
    title: 'Sign out',
    body: `<h1>Sign out</h1>
<p>You are signed in as <strong>${escapeHtml(v.accountLabel)}</strong>.</p>
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button class="primary" type="submit" autofocus>Sign out</button>
</form>
${accountNav('/signout')}`,
  });
}
