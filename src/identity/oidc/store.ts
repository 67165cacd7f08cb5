import type { Database, Queryable } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';

/**
 * What the rest of the service may ask of the provider's tables (oauth_tokens, oauth_auth_codes, oauth_grants,
 * oidc_artifacts: adapter.ts keeps them), so that no other folder writes them itself. The delegation columns of
 * oauth_tokens are delegated-tokens.ts's; an admin's view of a principal's tokens, token-admin.ts's.
 */

/** Revokes every token, code and grant an app holds for a principal (a withdrawn consent, `reason`). */
export async function revokeAppAccess(
  tx: Queryable,
  principalId: string,
  clientId: string,
  reason: string,
): Promise<void> {
  const grants = await tx.query<{ grant_hash: string }>(
    'DELETE FROM oauth_grants WHERE account_id = $1 AND client_id = $2 RETURNING grant_hash',
    [principalId, clientId],
  );
  const hashes = grants.rows.map((g) => g.grant_hash);
  await tx.query(
    `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = $3
      WHERE subject = $1 AND client_id = $2 AND NOT revoked`,
    [principalId, clientId, reason],
  );
  if (hashes.length)
    await tx.query('UPDATE oauth_auth_codes SET revoked = true WHERE grant_hash = ANY($1::text[])', [hashes]);
}

/** Ends the provider's browser session whose cookie value is `sessionId`, so no app can reuse it to skip signing in. */
export async function endProviderSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query("DELETE FROM oidc_artifacts WHERE model = 'Session' AND id_hash = $1", [sha256Hex(sessionId)]);
}

/** Marks an authorization code used, so it can never be exchanged (the account pages' codes prove only the sign-in). */
export async function spendAuthorizationCode(db: Queryable, code: string): Promise<void> {
  await db.query('UPDATE oauth_auth_codes SET used = true, used_at = now() WHERE code_signature = $1 AND NOT used', [
    sha256Hex(code),
  ]);
}

/** Removes what can no longer be used: expired a day ago (kept that long so "expired" can still be told apart from "unknown"). */
export async function purgeExpired(db: Database): Promise<void> {
  await db.query("DELETE FROM oidc_artifacts WHERE expires_at < now() - interval '1 day'");
  await db.query("DELETE FROM oauth_auth_codes WHERE expires_at < now() - interval '1 day'");
  await db.query("DELETE FROM oauth_grants WHERE expires_at < now() - interval '1 day'");
  await db.query(
    "DELETE FROM oauth_tokens WHERE coalesce(refresh_expires_at, access_expires_at) < now() - interval '30 days'",
  );
}
