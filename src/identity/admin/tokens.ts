import type { Database } from '../../kit/db.ts';

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

/** A principal's live tokens (never the values: those are not stored). */
export async function listTokens(db: Database, principalId: string): Promise<TokenView[]> {
  const r = await db.query<TokenView>(
    `SELECT id, kind, client_id, scopes, created_at::text AS created_at,
            coalesce(refresh_expires_at, access_expires_at)::text AS expires_at, client_ip, user_agent, last_used_at::text AS last_used_at
       FROM oauth_tokens
      WHERE principal_id = $1 AND NOT revoked AND consumed_at IS NULL AND coalesce(refresh_expires_at, access_expires_at) > now()
      ORDER BY created_at DESC LIMIT 500`,
    [principalId],
  );
  return r.rows;
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
      await tx.query("UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'admin_revoked' WHERE grant_hash = $1 AND NOT revoked", [row.grant_hash]);
      await tx.query('DELETE FROM oauth_grants WHERE grant_hash = $1', [row.grant_hash]);
    }
    return true;
  });
}
