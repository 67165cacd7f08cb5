import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { recordChange } from '../events/record.ts';

export interface LoginSession {
  /** The row's key: a random UUID, which names the session on the sessions page and opens nothing. */
  id: string;
  principalId: string;
  expiresAt: Date;
  /** When its sign-in passed a second step (or was a passkey sign-in); undefined when it did not. */
  secondFactorAt: Date | undefined;
}

/**
 * Starts a browser login session; the token goes to the cookie, only its SHA-256 to the database.
 * `secondFactor`: the sign-in passed a second step (src/identity/mfa), recorded as `second_factor_at`.
 */
export async function startLoginSession(
  db: Database,
  principalId: string,
  ttlSeconds: number,
  origin: { ip?: string | undefined; userAgent?: string | undefined },
  provider?: string,
  secondFactor = false,
): Promise<string> {
  const token = randomToken(32);
  await db.query(
    `INSERT INTO login_sessions (token_hash, principal_id, client_ip, user_agent, expires_at, provider, second_factor_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), $6, CASE WHEN $7::boolean THEN now() END)`,
    [
      sha256Hex(token),
      principalId,
      origin.ip ?? null,
      origin.userAgent?.slice(0, 512) ?? null,
      ttlSeconds,
      provider ?? null,
      secondFactor,
    ],
  );
  await recordChange(db, {
    actor: { kind: 'person', id: principalId },
    action: 'signin.succeed',
    target: { type: 'principal', id: principalId },
    before: null,
    after: { method: provider ?? 'password or passkey', second_factor: secondFactor },
    clientIp: origin.ip,
  });
  return token;
}

export async function findLoginSession(db: Database, token: string | undefined): Promise<LoginSession | undefined> {
  if (!token || token.length > 128) return undefined;
  const r = await db.query<{
    id: string;
    principal_id: string;
    expires_at: Date | string;
    second_factor_at: Date | string | null;
  }>(
    `SELECT s.id, s.principal_id, s.expires_at, s.second_factor_at FROM login_sessions s JOIN principals p ON p.id = s.principal_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND p.active`,
    [sha256Hex(token)],
  );
  const row = r.rows[0];
  return row
    ? {
        id: row.id,
        principalId: row.principal_id,
        expiresAt: new Date(row.expires_at),
        secondFactorAt: row.second_factor_at ? new Date(row.second_factor_at) : undefined,
      }
    : undefined;
}

export async function endLoginSession(db: Database, token: string | undefined): Promise<void> {
  if (!token || token.length > 128) return;
  await db.query('DELETE FROM login_sessions WHERE token_hash = $1', [sha256Hex(token)]);
}

/** Ends every login session of the principal (a changed password signs them out everywhere). */
export async function endAllLoginSessions(db: Database, principalId: string): Promise<void> {
  await db.query('DELETE FROM login_sessions WHERE principal_id = $1', [principalId]);
}

/**
 * Ends everything that lets the person in without signing in again, inside the caller's transaction: every browser login
 * session, every grant, every code not yet exchanged, and every live access and refresh token (revoked with `reason`).
 * Answers how many live sessions ended and how many tokens were revoked.
 */
export async function endEverySessionAndToken(
  tx: Queryable,
  principalId: string,
  reason: string,
): Promise<{ sessions: number; tokens: number }> {
  const sessions = await tx.query<{ live: boolean }>(
    'DELETE FROM login_sessions WHERE principal_id = $1 RETURNING expires_at > now() AS live',
    [principalId],
  );
  await tx.query('DELETE FROM oauth_grants WHERE account_id = $1', [principalId]);
  await tx.query('UPDATE oauth_auth_codes SET revoked = true WHERE subject = $1 AND NOT used AND NOT revoked', [
    principalId,
  ]);
  const tokens = await tx.query(
    `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = $2
      WHERE principal_id = $1 AND NOT revoked AND consumed_at IS NULL
        AND coalesce(refresh_expires_at, access_expires_at) > now()`,
    [principalId, reason],
  );
  return { sessions: sessions.rows.filter((s) => s.live).length, tokens: tokens.rowCount ?? 0 };
}

/** Removes sessions expired a day ago. */
export async function purgeExpiredSessions(db: Database): Promise<void> {
  await db.query("DELETE FROM login_sessions WHERE expires_at < now() - interval '1 day'");
}
