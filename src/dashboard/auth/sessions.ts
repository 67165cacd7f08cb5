import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import type { Database, Queryable } from '../../kit/db.ts';
import { signAccessToken, type JwtKeys } from './jwt.ts';
import type { Role } from './roles.ts';

/** Document 1's token pair. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
}

export interface TokenSettings {
  keys: JwtKeys;
  accessTtl: number;
  refreshTtl: number;
}

interface SessionUser {
  id: number;
  email: string;
  role: Role;
  tenantId: number;
}

// Refresh tokens are opaque random strings with a recognisable prefix (so secret scanners can find a leaked one).
const REFRESH_PREFIX = 'drt_';

async function issuePair(
  tx: Queryable,
  settings: TokenSettings,
  sessionId: number,
  user: SessionUser,
): Promise<TokenPair> {
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await signAccessToken(settings.keys, user, settings.accessTtl, now);
  const refreshToken = REFRESH_PREFIX + randomToken(32);
  await tx.query(
    `INSERT INTO access_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, to_timestamp($3)) ON CONFLICT DO NOTHING`,
    [sha256Hex(accessToken), sessionId, now + settings.accessTtl],
  );
  await tx.query(
    `INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [sha256Hex(refreshToken), sessionId, settings.refreshTtl],
  );
  await tx.query(`UPDATE sessions SET expires_at = now() + make_interval(secs => $2) WHERE id = $1`, [
    sessionId,
    settings.refreshTtl,
  ]);
  return { accessToken, refreshToken, expiresIn: settings.accessTtl, tokenType: 'Bearer' };
}

/** A new sign-in of `user` through `provider`: a session (token family) and its first token pair. */
export async function startSession(
  db: Database,
  settings: TokenSettings,
  user: SessionUser,
  provider: string,
): Promise<TokenPair> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      `INSERT INTO sessions (user_id, provider, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING id`,
      [user.id, provider, settings.refreshTtl],
    );
    await tx.query(`UPDATE users SET last_login_at = now() WHERE id = $1`, [user.id]);
    return issuePair(tx, settings, rows[0]!.id, user);
  });
}

export type RefreshOutcome =
  | { ok: true; pair: TokenPair; userId: number; tenantId: number }
  | { ok: false; reason: 'unknown' | 'expired' | 'reused' | 'revoked' | 'inactive' };

/**
 * Rotates a refresh token: the presented one is consumed by one conditional UPDATE (so two
 * simultaneous uses cannot both succeed) and a new pair is issued in the same session. A token
 * presented again after its use is taken as stolen: the whole family (every refresh and access
 * token of the session) is revoked.
 */
export async function rotateRefreshToken(
  db: Database,
  settings: TokenSettings,
  refreshToken: string,
): Promise<RefreshOutcome> {
  const hash = sha256Hex(refreshToken);
  const outcome = await db.transaction(async (tx): Promise<RefreshOutcome | { reused: number }> => {
    const consumed = await tx.query<{ session_id: number; expired: boolean }>(
      `UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING session_id, expires_at <= now() AS expired`,
      [hash],
    );
    const row = consumed.rows[0];
    if (!row) {
      const known = await tx.query<{ session_id: number }>(
        `SELECT session_id FROM refresh_tokens WHERE token_hash = $1`,
        [hash],
      );
      return known.rows[0] ? { reused: known.rows[0].session_id } : { ok: false, reason: 'unknown' };
    }
    if (row.expired) return { ok: false, reason: 'expired' };
    const { rows } = await tx.query<{
      revoked: boolean;
      id: number;
      email: string;
      role: Role;
      tenant_id: number;
      active: boolean;
    }>(
      `SELECT s.revoked_at IS NOT NULL AS revoked, u.id, u.email, u.role, u.tenant_id, u.active
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1`,
      [row.session_id],
    );
    const s = rows[0]!;
    if (s.revoked) return { ok: false, reason: 'revoked' };
    if (!s.active) return { ok: false, reason: 'inactive' };
    const pair = await issuePair(tx, settings, row.session_id, {
      id: s.id,
      email: s.email,
      role: s.role,
      tenantId: s.tenant_id,
    });
    return { ok: true, pair, userId: s.id, tenantId: s.tenant_id };
  });
  if ('reused' in outcome) {
    await revokeSession(db, outcome.reused, 'refresh token reused');
    return { ok: false, reason: 'reused' };
  }
  return outcome;
}

/** Ends a session: its refresh tokens can no longer be used and its access tokens stop working now. */
export async function revokeSession(db: Queryable, sessionId: number, why: string): Promise<void> {
  await db.query(`UPDATE sessions SET revoked_at = now(), revoked_why = $2 WHERE id = $1 AND revoked_at IS NULL`, [
    sessionId,
    why,
  ]);
}

/** Logout with an access token: the session it belongs to is revoked (every session, in the rare case two share it). */
export async function revokeSessionOfAccessToken(db: Queryable, tokenHash: string): Promise<void> {
  await db.query(
    `UPDATE sessions SET revoked_at = now(), revoked_why = 'logout'
      WHERE id IN (SELECT session_id FROM access_tokens WHERE token_hash = $1) AND revoked_at IS NULL`,
    [tokenHash],
  );
  await db.query(`UPDATE access_tokens SET revoked_at = now() WHERE token_hash = $1`, [tokenHash]);
}

/** Forgets tokens and login states past their expiry (revocations need not outlive the token they revoke). */
export async function purgeExpired(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM access_tokens WHERE expires_at < now()`);
  await db.query(`DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'`);
  await db.query(`DELETE FROM login_states WHERE expires_at < now()`);
  await db.query(`DELETE FROM sessions WHERE expires_at < now() - interval '1 day'`);
}
