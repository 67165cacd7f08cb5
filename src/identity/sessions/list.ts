import type { Database } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

/** A live login session as its owner sees it on the sessions page: never its token or the token's hash. */
export interface SessionView {
  id: string;
  createdAt: string;
  expiresAt: string;
  clientIp: string | null;
  userAgent: string | null;
  /** The social provider it was signed in with, if any. */
  provider: string | null;
  secondFactor: boolean;
}

/** The person's live login sessions, newest first (a person has a handful: one per browser they signed in on). */
export async function listLoginSessions(db: Database, principalId: string): Promise<SessionView[]> {
  const r = await db.query<SessionView>(
    `SELECT id, ${isoUtc('created_at')} AS "createdAt", ${isoUtc('expires_at')} AS "expiresAt", client_ip AS "clientIp", user_agent AS "userAgent",
            provider, second_factor_at IS NOT NULL AS "secondFactor"
       FROM login_sessions WHERE principal_id = $1 AND expires_at > now() ORDER BY created_at DESC, id LIMIT 200`,
    [principalId],
  );
  return r.rows;
}

/**
 * Ends one of the person's other sessions: the row goes, so its cookie finds nothing at the next request (the
 * provider's session of that browser no longer counts either: the login prompt needs a live login session). The
 * browser's own session is not ended here (that is /signout, which also clears its cookies). False when the id names
 * no live session of this person other than `currentId`.
 */
export async function endOtherSession(
  db: Database,
  principalId: string,
  id: string,
  currentId: string,
): Promise<boolean> {
  const r = await db.query(
    'DELETE FROM login_sessions WHERE id = $1 AND principal_id = $2 AND id <> $3 AND expires_at > now()',
    [id, principalId, currentId],
  );
  return r.rowCount > 0;
}

/** Ends every session of the person but `currentId`; answers how many ended. */
export async function endOtherSessions(db: Database, principalId: string, currentId: string): Promise<number> {
  const r = await db.query('DELETE FROM login_sessions WHERE principal_id = $1 AND id <> $2', [principalId, currentId]);
  return r.rowCount;
}
