import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import type { Database } from '../../kit/db.ts';
import { signAccessToken, type JwtKeys } from '../auth/jwt.ts';
import { RENDER_SESSIONS, type AuthUser, type RenderPurpose } from '../auth/user.ts';

export type RenderCredential = Awaited<ReturnType<typeof renderCredential>>;

/**
 * A credential for one render, as `user`: a session of its own holding one access token that lives `ttlSeconds`,
 * revoked as soon as the picture is taken. It reaches the page through the page's storage (an init script), never a
 * URL, so it is in no address bar, history, proxy or request log. Its session's provider (RENDER_SESSIONS, by
 * `purpose`) makes it read-only: it reads what a viewer may read, with the user's rights, and changes nothing
 * (auth/access.ts).
 */
export async function renderCredential(
  db: Database,
  keys: JwtKeys,
  user: AuthUser,
  purpose: RenderPurpose = 'subscription',
  ttlSeconds = 120,
) {
  const session = await db.query<{ id: number }>(
    `INSERT INTO sessions (user_id, provider, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING id::int AS id`,
    [user.id, RENDER_SESSIONS[purpose], ttlSeconds],
  );
  const sessionId = session.rows[0]!.id;
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await signAccessToken(keys, user, ttlSeconds, now);
  await db.query(`INSERT INTO access_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, to_timestamp($3))`, [
    sha256Hex(accessToken),
    sessionId,
    now + ttlSeconds,
  ]);
  return {
    sessionId,
    // The refresh token is not stored anywhere: the render cannot outlive its access token.
    pair: { accessToken, refreshToken: `drt_${randomToken(32)}`, expiresIn: ttlSeconds, tokenType: 'Bearer' },
    revoke: () =>
      db.query(`UPDATE sessions SET revoked_at = now(), revoked_why = 'render done' WHERE id = $1`, [sessionId]),
  };
}
