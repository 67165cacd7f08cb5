import type { Database } from '../../kit/db.ts';
import { revokeSecondFactors } from './second-factor-reset.ts';

/** Revokes a person's authenticator app and passkeys (reason `admin_reset`); their recovery codes go too. */
export async function resetSecondFactors(
  db: Database,
  principalId: string,
): Promise<{ totp: number; webauthn: number }> {
  return db.transaction((tx) => revokeSecondFactors(tx, principalId));
}
