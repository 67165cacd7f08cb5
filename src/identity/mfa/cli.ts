import type { Database } from '../../kit/db.ts';
import { CommandFailure, str, type Command } from '../../kit/cli-runner.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { revokeSecondFactors } from './second-factor-reset.ts';

/** Revokes a person's authenticator app and passkeys (reason `admin_reset`); their recovery codes go too. */
export async function resetSecondFactors(
  db: Database,
  principalId: string,
): Promise<{ totp: number; webauthn: number }> {
  return db.transaction((tx) => revokeSecondFactors(tx, principalId));
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
