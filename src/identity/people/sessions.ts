import type { Database, Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { endEverySessionAndToken } from '../sessions/store.ts';
import { recordChange, type Actor } from '../events/record.ts';

/** A person's live browser session at identity as an admin sees it: never its token or the token's hash. */
export interface SessionOut {
  id: string;
  created_at: string;
  expires_at: string;
  client_ip: string | null;
  user_agent: string | null;
  /** The social provider it was signed in with, if any. */
  provider: string | null;
  second_factor: boolean;
}

/** The person's live sessions, newest first, `limit` of them after `after` (a previous row's position). */
export async function listSessions(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(SessionOut & { position: [string, string] })[]> {
  const r = await db.query<SessionOut & { sort_at: string }>(
    `SELECT id, ${isoUtc('created_at')} AS created_at, ${isoUtc('expires_at')} AS expires_at, client_ip, user_agent, provider,
            second_factor_at IS NOT NULL AS second_factor, created_at::text AS sort_at
       FROM login_sessions
      WHERE principal_id = $1 AND expires_at > now()
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY login_sessions.created_at DESC, login_sessions.id DESC LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...s }) => ({ ...s, position: [sort_at, s.id] }));
}

/**
 * Ends one of the person's sessions: its cookie finds nothing at the next request, and the provider's session of that
 * browser no longer counts (its login prompt needs a live login session). Tokens apps hold stay until they expire or
 * are revoked; ending every session revokes them too. Recorded; false when the id names no live session of the person.
 */
export async function endSession(db: Database, principalId: string, sessionId: string, actor: Actor): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ created_at: string; client_ip: string | null; user_agent: string | null }>(
      `DELETE FROM login_sessions WHERE id = $1 AND principal_id = $2 AND expires_at > now()
        RETURNING ${isoUtc('created_at')} AS created_at, client_ip, user_agent`,
      [sessionId, principalId],
    );
    const ended = r.rows[0];
    if (!ended) return false;
    await recordChange(tx, {
      actor,
      action: 'login_session.end',
      target: { type: 'principal', id: principalId },
      before: { session: { id: sessionId, ...ended } },
      after: null,
    });
    return true;
  });
}

/**
 * Signs the person out everywhere: every browser session ends, and every live token apps hold for them is revoked
 * (refresh tokens included, with the grants behind them and any code not yet exchanged), so each app must sign them in
 * again. Recorded with the counts.
 */
export async function signOutEverywhere(
  db: Database,
  principalId: string,
  actor: Actor,
): Promise<{ sessions: number; tokens: number }> {
  return db.transaction(async (tx) => {
    const counts = await endEverySessionAndToken(tx, principalId, 'admin_signed_out');
    await recordChange(tx, {
      actor,
      action: 'login_sessions.end_all',
      target: { type: 'principal', id: principalId },
      before: null,
      after: { sessions_ended: counts.sessions, tokens_revoked: counts.tokens },
    });
    return counts;
  });
}
