import type { Database } from '../../kit/db.ts';
import { setPassword } from '../principals/store.ts';
import { endAllLoginSessions, startLoginSession } from '../sessions/store.ts';

/**
 * Changes a person's password (scrypt, the previous one revoked as `replaced`) and ends every browser login session of
 * theirs: whoever knew the old password is signed out everywhere. When the change came from a browser, that browser
 * gets a fresh session (returned: its cookie value). Access and refresh tokens already issued to apps are left alone.
 */
export async function changePassword(
  db: Database,
  principalId: string,
  password: string,
  browser: { ip?: string | undefined; userAgent?: string | undefined } | undefined,
  ttlSeconds: number,
): Promise<string | undefined> {
  await setPassword(db, principalId, password);
  await endAllLoginSessions(db, principalId);
  return browser ? startLoginSession(db, principalId, ttlSeconds, browser) : undefined;
}
