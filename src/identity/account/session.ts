import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { PrincipalView } from '../principals/view.ts';
import { LOGIN_COOKIE, readCookie } from '../sessions/cookie.ts';
import { findLoginSession } from '../sessions/store.ts';

/** The principal whose live login session (__Host-svc_login) this browser holds, if any. */
export async function signedIn(db: Database, accounts: PrincipalDirectory, request: FastifyRequest): Promise<PrincipalView | undefined> {
  const session = await findLoginSession(db, readCookie(request.headers.cookie, LOGIN_COOKIE));
  if (!session) return undefined;
  const account = await accounts.find(session.principalId);
  return account?.active ? account : undefined;
}
