import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import { LOGIN_COOKIE } from './cookie.ts';
import { readCookie } from '../web/cookies.ts';
import { findLoginSession, type LoginSession } from './store.ts';

/** The person a browser is signed in as, through its live login session (`__Host-svc_login`). */
export interface SignedIn {
  account: PrincipalView;
  session: LoginSession;
  /**
   * The cookie's value. Only its hash leaves this object (`csrfBinding`): the account pages' CSRF tokens are bound to
   * the login session, so a token taken from one browser's page is worthless once that session ends.
   */
  token: string;
}

/** Who this browser is signed in as: a live login session of an active principal, or undefined. */
export async function signedIn(
  db: Database,
  accounts: PrincipalDirectory,
  request: FastifyRequest,
): Promise<SignedIn | undefined> {
  const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
  const session = await findLoginSession(db, token);
  if (!session || !token) return undefined;
  const account = await accounts.find(session.principalId);
  return account?.active ? { account, session, token } : undefined;
}

/** What a page's CSRF token is bound to: the page's purpose and this login session. */
export function csrfBinding(purpose: string, who: SignedIn): string {
  return `${purpose}:${sha256Hex(who.token)}`;
}
