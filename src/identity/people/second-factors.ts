import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { revokeSecondFactors } from '../mfa/second-factor-reset.ts';

/**
 * Resets a person's second factors for someone locked out (as `platform identity mfa reset` does): their authenticator
 * app with its recovery codes and their passkeys are revoked (reason `admin_reset`, kept on record), recorded in
 * admin_changes with the counts. 404 for nobody, 409 for a principal that is not a person.
 */
export async function resetPersonSecondFactors(
  db: Database,
  principalId: string,
  actor: Actor,
): Promise<{ totp: number; passkeys: number }> {
  return db.transaction(async (tx) => {
    const found = await tx.query<{ type: string }>('SELECT type FROM principals WHERE id = $1 FOR UPDATE', [
      principalId,
    ]);
    const type = found.rows[0]?.type;
    if (!type) throw new HttpError(404, 'NOT_FOUND', `no principal ${principalId}`);
    if (type !== 'human')
      throw new HttpError(
        409,
        'CONFLICT',
        `second factors are a person's: principal ${principalId} is of type ${type}`,
      );
    const revoked = await revokeSecondFactors(tx, principalId);
    const counts = { totp: revoked.totp, passkeys: revoked.webauthn };
    await recordChange(tx, {
      actor,
      action: 'second_factors.reset',
      target: { type: 'principal', id: principalId },
      before: null,
      after: { totp_revoked: counts.totp, passkeys_revoked: counts.passkeys },
    });
    return counts;
  });
}
