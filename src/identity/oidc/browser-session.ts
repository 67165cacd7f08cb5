import type { Queryable } from '../../kit/db.ts';
import { readCookie } from '../web/cookies.ts';
import type { OidcProvider } from './provider.ts';
import { endProviderSession } from './store.ts';

/**
 * Ends the provider's own browser session named by the request's cookies (the service's sign-out, a fresh sign-in of
 * the account pages), so no app can reuse it to skip signing in. `found`: the browser had one; `clearing`: the
 * Set-Cookie values that clear its cookies.
 */
export async function endBrowserSession(
  db: Queryable,
  provider: OidcProvider,
  cookieHeader: string | undefined,
): Promise<{ found: boolean; clearing: string[] }> {
  const name = provider.cookieName('session');
  const id = readCookie(cookieHeader, name);
  if (id) await endProviderSession(db, id);
  return {
    found: Boolean(id),
    clearing: [
      `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
      `${name}.sig=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
    ],
  };
}
