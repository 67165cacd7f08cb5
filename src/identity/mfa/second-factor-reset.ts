import type { Queryable } from '../../kit/db.ts';

/**
 * Revokes a person's authenticator app and passkeys (reason `admin_reset`, kept on record), deletes their recovery
 * codes, an enrollment not yet confirmed and a sign-in waiting for a second factor, inside the caller's transaction:
 * afterwards they sign in with their first factor alone and may enrol again. Answers how many of each were revoked.
 */
export async function revokeSecondFactors(
  tx: Queryable,
  principalId: string,
): Promise<{ totp: number; webauthn: number }> {
  await tx.query("DELETE FROM credentials WHERE principal_id = $1 AND type = 'totp' AND NOT active AND NOT revoked", [
    principalId,
  ]);
  const r = await tx.query<{ type: 'totp' | 'webauthn' }>(
    `UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = 'admin_reset', updated_at = now()
      WHERE principal_id = $1 AND type IN ('totp', 'webauthn') AND NOT revoked RETURNING type`,
    [principalId],
  );
  await tx.query('DELETE FROM mfa_recovery_codes WHERE principal_id = $1', [principalId]);
  await tx.query('DELETE FROM mfa_pending WHERE principal_id = $1', [principalId]);
  return {
    totp: r.rows.filter((x) => x.type === 'totp').length,
    webauthn: r.rows.filter((x) => x.type === 'webauthn').length,
  };
}
