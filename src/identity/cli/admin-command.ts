import { randomToken } from '../../kit/crypto.ts';
import { str, type Command } from '../../kit/cli-runner.ts';
import { createHuman, makePlatformAdmin, setPassword } from '../principals/store.ts';
import { findHumanByEmail } from '../principals/view.ts';
import type { WithDatabase } from './with-database.ts';

/** `platform identity admin create`: a platform admin, or an existing person made one. */
export function createAdminCommand(withDatabase: WithDatabase): Command {
  return {
    path: ['admin', 'create'],
    synopsis: '--email EMAIL [--password PASSWORD] [--name NAME]',
    summary: 'make a platform admin (a password is generated and shown once if omitted)',
    details: [
      'an existing account with this email becomes a platform admin (its password is replaced only if --password is given)',
    ],
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
    required: ['email'],
    run: ({ values, result }) =>
      withDatabase(async (db) => {
        const email = str(values, 'email')!;
        const given = str(values, 'password');
        const existing = await findHumanByEmail(db, email);
        if (existing) {
          await makePlatformAdmin(db, existing.id);
          if (given) await setPassword(db, existing.id, given);
          result(
            {
              principal_id: existing.id,
              email: existing.identifier,
              created: false,
              password_updated: Boolean(given),
            },
            [
              `${existing.identifier} is now a platform admin (principal ${existing.id})${given ? '; password updated' : ''}`,
            ],
          );
          return;
        }
        const generated = given ? undefined : randomToken(18);
        const human = await createHuman(db, {
          email,
          password: given ?? generated!,
          displayName: str(values, 'name'),
          isPlatformAdmin: true,
          emailVerified: true,
        });
        result(
          {
            principal_id: human.id,
            email: human.identifier,
            created: true,
            ...(generated ? { password: generated } : {}),
          },
          [
            `created platform admin ${human.identifier} (principal ${human.id})`,
            ...(generated ? [`password (shown once): ${generated}`] : []),
          ],
        );
      }),
  };
}
