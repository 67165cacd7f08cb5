/** Where the standalone sign-in may send a browser back to: the service's own account, agents and invitation pages only. */
const RETURN_PREFIXES = ['/invites/accept', '/account/', '/agents'];
export const DEFAULT_RETURN = '/account/password';
/** The "forgot password" page (src/identity/password-links/recovery-routes.ts), linked from every sign-in page. */
export const FORGOT_PASSWORD_PATH = '/account/forgot-password';

export function safeReturn(value: unknown, issuer: string): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.length > 1000)
    return DEFAULT_RETURN;
  try {
    const base = new URL(issuer);
    const u = new URL(value, base);
    if (u.origin !== base.origin || !RETURN_PREFIXES.some((p) => u.pathname === p || u.pathname.startsWith(p)))
      return DEFAULT_RETURN;
    return u.pathname + u.search;
  } catch {
    return DEFAULT_RETURN;
  }
}

/**
 * The sign-in that comes back to `returnTo`; `loginHint` fills in the email address. A browser already signed in (as
 * the hinted person, when there is a hint) goes straight to `returnTo`, unless `again`: "sign in as someone else", or
 * a fresh sign-in to confirm it is you, which signs the browser out first.
 */
export function signInLink(returnTo: string, loginHint?: string, again = false): string {
  return `/signin?return_to=${encodeURIComponent(returnTo)}${loginHint ? `&login_hint=${encodeURIComponent(loginHint)}` : ''}${again ? '&prompt=login' : ''}`;
}
