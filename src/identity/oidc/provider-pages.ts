import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml, page } from '../web/layout.ts';
import { localized, type Localized } from '../web/i18n/negotiate.ts';

// Pages the provider renders itself (its logout confirmation and its error page), in the service's accessible layout.

/** The page's language from the request's Accept-Language; the answer says it varies by that header. */
function language(ctx: KoaContextWithOIDC): Localized {
  ctx.append('Vary', 'Accept-Language');
  return localized(ctx.get('accept-language') || undefined);
}

export async function pageForLogout(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const { lang, t: all } = language(ctx);
  const t = all.provider;
  ctx.type = 'html';
  ctx.body = page({
    lang,
    title: t.logoutTitle,
    body: `<h1>${escapeHtml(t.logoutTitle)}</h1>
<p>${escapeHtml(t.logoutQuestion(ctx.host))}</p>
${form}
<button class="primary" type="submit" form="op.logoutForm" value="yes" name="logout">${escapeHtml(t.logout)}</button>
<button class="secondary" type="submit" form="op.logoutForm">${escapeHtml(t.stay)}</button>`,
  });
}

export async function pageForLogoutSuccess(ctx: KoaContextWithOIDC): Promise<void> {
  const { lang, t: all } = language(ctx);
  const t = all.provider;
  ctx.type = 'html';
  ctx.body = page({
    lang,
    title: t.signedOutTitle,
    body: `<h1>${escapeHtml(t.signedOutTitle)}</h1>\n<p>${escapeHtml(t.signedOut)}</p>`,
  });
}

export async function pageForError(
  ctx: KoaContextWithOIDC,
  out: { error?: string | undefined; error_description?: string | undefined },
): Promise<void> {
  const { lang, t: all } = language(ctx);
  const t = all.provider;
  // The provider's logout endpoints use this page too: a failed sign-out is not a failed sign-in.
  const what = String(ctx.oidc?.route ?? '').startsWith('end_session') ? t.signOutFailed : t.signInFailed;
  // The error code and the provider's description are protocol words (RFC 6749), shown as they are.
  ctx.type = 'html';
  ctx.body = page({
    lang,
    title: what,
    body: `<h1>${escapeHtml(what)}</h1>
<p role="alert"><strong>${escapeHtml(out.error ?? 'server_error')}</strong>${escapeHtml(t.colon)} ${escapeHtml(out.error_description ?? t.noDescription)}</p>
<p>${escapeHtml(t.tryAgain)}</p>`,
  });
}

/** The pages the provider renders itself, handed to it by the app (see ProviderDeps.pages). */
export const PROVIDER_PAGES = { logout: pageForLogout, logoutSuccess: pageForLogoutSuccess, error: pageForError };
