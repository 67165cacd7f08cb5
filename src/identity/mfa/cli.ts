import type { Database } from '../../kit/db.ts';
import { CommandFailure, str, type Command } from '../../kit/cli-runner.ts';
import { findHumanByEmail } from '../principals/view.ts';

/** Revokes a person's authenticator app and passkeys (reason `admin_reset`); their recovery codes go too. */
export async function resetSecondFactors(
  db: Database,
  principalId: string,
): Promise<{ totp: number; webauthn: number }> {
  return db.transaction(async (tx) => {
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
  });
}

/** `platform identity mfa reset --email EMAIL`: for a person who lost both the app and the recovery codes. */
export function mfaCommands(withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>): Command[] {
  return [
    {
      path: ['mfa', 'reset'],
      synopsis: '--email EMAIL',
      summary:
        "revoke a person's authenticator app, recovery codes and passkeys (they sign in with the password alone)",
      details: ['for someone locked out; revoked credentials stay on record with reason admin_reset'],
      options: { email: { type: 'string' } },
      required: ['email'],
      run: ({ values, result }) =>
        withDatabase(async (db) => {
          const email = str(values, 'email')!;
          const human = await findHumanByEmail(db, email);
          if (!human) throw new CommandFailure(`no person with the email ${email}`);
          const done = await resetSecondFactors(db, human.id);
          result({ principal_id: human.id, revoked: done }, [
            `${human.identifier}: revoked ${done.totp} authenticator app${done.totp === 1 ? '' : 's'} (with its recovery codes) and ${done.webauthn} passkey${done.webauthn === 1 ? '' : 's'}`,
          ]);
        }),
    },
  ];
}
