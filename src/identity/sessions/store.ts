import type { Database } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';

export interface LoginSession {
  principalId: string;
  expiresAt: Date;
}

/** Starts a browser login session; the token goes to the cookie, only its SHA-256 to the database. */
export async function startLoginSession(db: Database, principalId: string, ttlSeconds: number, origin: { ip?: string | undefined; userAgent?: string | undefined }, provider?: string): Promise<string> {
  const token = randomToken(32);
  await db.query(
    `INSERT INTO login_sessions (token_hash, principal_id, client_ip, user_agent, expires_at, provider)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), $6)`,
    [sha256Hex(token), principalId, origin.ip ?? null, origin.userAgent?.slice(0, 512) ?? null, ttlSeconds, provider ?? null],
  );
  return token;
}

export async function findLoginSession(db: Database, token: string | undefined): Promise<LoginSession | undefined> {
  if (!token || token.length > 128) return undefined;
  const r = await db.query<{ principal_id: string; expires_at: Date | string }>(
    `SELECT s.principal_id, s.expires_at FROM login_sessions s JOIN principals p ON p.id = s.principal_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND p.active`,
    [sha256Hex(token)],
  );
  const row = r.rows[0];
  return row ? { principalId: row.principal_id, expiresAt: new Date(row.expires_at) } : undefined;
}

export async function endLoginSession(db: Database, token: string | undefined): Promise<void> {
  if (!token || token.length > 128) return;
  await db.query('DELETE FROM login_sessions WHERE token_hash = $1', [sha256Hex(token)]);
}
