import type { Database } from '../../kit/db.ts';
import { CommandFailure, str, type Command } from '../../kit/cli-runner.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { resetPersonSecondFactors } from '../people/second-factors.ts';
import { COMMAND } from '../admin-log/command-record.ts';

/**
 * `platform identity mfa reset --email EMAIL`: for a person who lost both the app and the recovery codes. It goes
 * through the reset `POST /principals/:id/second-factors/reset` makes, recorded there with the actor `command`.
 */
export function mfaCommands(withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>): Command[] {
  return [
    {
      path: ['mfa', 'reset'],
      synopsis: '--email EMAIL',
      summary:
        "revoke a person's authenticator app, recovery codes and passkeys (they sign in with the password alone)",
      details: [
        'for someone locked out; revoked credentials stay on record with reason admin_reset',
        'recorded in the change log (GET /api/v1/admin-log) with the actor "command"',
      ],
      options: { email: { type: 'string' } },
      required: ['email'],
      run: ({ values, result }) =>
        withDatabase(async (db) => {
          const email = str(values, 'email')!;
          const human = await findHumanByEmail(db, email);
          if (!human) throw new CommandFailure(`no person with the email ${email}`);
          const done = await resetPersonSecondFactors(db, human.id, COMMAND);
          result({ principal_id: human.id, revoked: { totp: done.totp, webauthn: done.passkeys } }, [
            `${human.identifier}: revoked ${done.totp} authenticator app${done.totp === 1 ? '' : 's'} (with its recovery codes) and ${done.passkeys} passkey${done.passkeys === 1 ? '' : 's'}`,
          ]);
        }),
    },
  ];
}
