import { escapeHtml } from '../web/layout.ts';
import { en, type Messages } from '../web/i18n/en.ts';

export interface ProviderButton {
  id: string;
  name: string;
}

/**
 * The sign-in page's "Continue with …" buttons, one form each (a POST with the page's CSRF token: a
 * link would let another site start a sign-in in the person's browser). Placed after the password
 * form, so the page's first form, and its first focus, stay the password sign-in.
 */
export function providerButtons(
  uid: string,
  csrf: string,
  providers: readonly ProviderButton[],
  t: Messages['social'] = en.social,
): string {
  if (providers.length === 0) return '';
  const forms = providers
    .map(
      (p) => `<form method="post" action="/interaction/${encodeURIComponent(uid)}/upstream/${encodeURIComponent(p.id)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button class="secondary" style="margin-left:0;width:100%" type="submit">${escapeHtml(t.continueWith(p.name))}</button>
</form>`,
    )
    .join('\n');
  return `<h2 style="font-size:1.125rem;margin:2rem 0 0">${escapeHtml(t.otherAccount)}</h2>\n${forms}`;
}
