import type { ApiTokenPair } from './types.ts';

export const SESSION_KEY = 'dashboard.session';
const KEY = SESSION_KEY;

/**
 * The token pair lives in localStorage, so every tab of the app shares one sign-in (a dashboard opened in a new tab
 * is signed in, as in Grafana and Redash); it is not sent with every request as a cookie would be (so no CSRF), and
 * the strict CSP keeps other scripts off the page. Tabs refresh it one at a time (client.ts), and signing out in one
 * signs every tab out (App.tsx listens for the change).
 */
export function readSession(): ApiTokenPair | undefined {
  // A pair an earlier version of the app kept per tab moves over, so nobody is signed out by the upgrade.
  const kept = sessionStorage.getItem(KEY);
  if (kept) {
    sessionStorage.removeItem(KEY);
    if (!localStorage.getItem(KEY)) localStorage.setItem(KEY, kept);
  }
  const raw = localStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as ApiTokenPair;
  } catch {
    return undefined;
  }
}

export function writeSession(pair: ApiTokenPair | undefined): void {
  if (pair) localStorage.setItem(KEY, JSON.stringify(pair));
  else localStorage.removeItem(KEY);
}

/** After a sign-in the service redirects here with the pair (or an error) in the fragment, which never reaches a server. */
export function takeLoginFragment(): { error?: string } {
  if (!location.hash.includes('accessToken=') && !location.hash.includes('error=')) return {};
  const params = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', location.pathname + location.search);
  const error = params.get('error_description');
  if (error) return { error };
  const accessToken = params.get('accessToken');
  const refreshToken = params.get('refreshToken');
  if (accessToken && refreshToken) {
    writeSession({ accessToken, refreshToken, expiresIn: Number(params.get('expiresIn') ?? 900), tokenType: 'Bearer' });
  }
  return {};
}
