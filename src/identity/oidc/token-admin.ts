import type { Database } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

export interface TokenView {
  id: string;
  kind: string;
  client_id: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  client_ip: string | null;
  user_agent: string | null;
  last_used_at: string | null;
}

/**
 * A principal's live tokens, newest first (never the values: those are not stored), `limit` of them after the position `after`.
 * The ORDER BY names the table's column: a bare `created_at` there is the output column of that name, the text cut to the
 * millisecond, so two tokens of one millisecond (an access token and its refresh token) would be sorted by id alone while
 * the cursor compares the exact times, and the next page would skip one.
 */
export async function listTokens(
  db: Database,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(TokenView & { position: [string, string] })[]> {
  const r = await db.query<TokenView & { sort_at: string }>(
    `SELECT id, kind, client_id, scopes, ${isoUtc('created_at')} AS created_at,
            ${isoUtc('coalesce(refresh_expires_at, access_expires_at)')} AS expires_at, client_ip, user_agent, ${isoUtc('last_used_at')} AS last_used_at,
            created_at::text AS sort_at
       FROM oauth_tokens
      WHERE principal_id = $1 AND NOT revoked AND consumed_at IS NULL AND coalesce(refresh_expires_at, access_expires_at) > now()
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY oauth_tokens.created_at DESC, oauth_tokens.id DESC LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...t }) => ({ ...t, position: [sort_at, t.id] }));
}

/** Revokes one token; a refresh token takes its whole family (grant) with it. */
export async function revokeToken(db: Database, principalId: string, tokenId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ kind: string; grant_hash: string | null }>(
      `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'admin_revoked'
        WHERE id = $1 AND principal_id = $2 AND NOT revoked RETURNING kind, grant_hash`,
      [tokenId, principalId],
    );
    const row = r.rows[0];
    if (!row) return false;
    if (row.kind === 'refresh_token' && row.grant_hash) {
      await tx.query(
        "UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'admin_revoked' WHERE grant_hash = $1 AND NOT revoked",
        [row.grant_hash],
      );
      await tx.query('DELETE FROM oauth_grants WHERE grant_hash = $1', [row.grant_hash]);
    }
    return true;
  });
}
