import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml, page } from '../web/layout.ts';

// Pages the provider renders itself (its logout confirmation and its error page), in the service's accessible layout.

export async function pageForLogout(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  ctx.type = 'html';
  ctx.body = page({
    title: 'Sign out',
    body: `<h1>Sign out</h1>
<p>Do you want to sign out of ${escapeHtml(ctx.host)}?</p>
${form}
<button class="primary" type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button>
<button class="secondary" type="submit" form="op.logoutForm">Stay signed in</button>`,
  });
}

export async function pageForLogoutSuccess(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.type = 'html';
  ctx.body = page({ title: 'Signed out', body: '<h1>Signed out</h1>\n<p>You are signed out.</p>' });
}

export async function pageForError(
  ctx: KoaContextWithOIDC,
  out: { error?: string | undefined; error_description?: string | undefined },
): Promise<void> {
  // The provider's logout endpoints use this page too: a failed sign-out is not a failed sign-in.
  const what = String(ctx.oidc?.route ?? '').startsWith('end_session')
    ? 'Sign-out request failed'
    : 'Sign-in request failed';
  ctx.type = 'html';
  ctx.body = page({
    title: what,
    body: `<h1>${what}</h1>
<p role="alert"><strong>${escapeHtml(out.error ?? 'server_error')}</strong>: ${escapeHtml(out.error_description ?? 'the request could not be completed')}</p>
<p>Return to the application you came from and try again.</p>`,
  });
}

/** The pages the provider renders itself, handed to it by the app (see ProviderDeps.pages). */
export const PROVIDER_PAGES = { logout: pageForLogout, logoutSuccess: pageForLogoutSuccess, error: pageForError };
