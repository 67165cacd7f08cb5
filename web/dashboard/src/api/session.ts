import type { ApiTokenPair } from './types.ts';

const KEY = 'dashboard.session';

/**
 * The token pair lives in sessionStorage: it is gone when the tab closes, is not sent with every request
 * as a cookie would be (so no CSRF), and the strict CSP keeps other scripts off the page.
 */
export function readSession(): ApiTokenPair | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as ApiTokenPair;
  } catch {
    return undefined;
  }
}

export function writeSession(pair: ApiTokenPair | undefined): void {
  if (pair) sessionStorage.setItem(KEY, JSON.stringify(pair));
  else sessionStorage.removeItem(KEY);
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
