import { randomToken } from '../../kit/crypto.ts';
import type { Database } from '../../kit/db.ts';
import { str, type Command } from '../../kit/cli-runner.ts';
import type { IdentityConfig } from '../config.ts';
import { createPrincipal } from '../admin/new-principal.ts';
import { consoleCatalog } from '../console/register.ts';
import { grantConsoleRight } from '../console/rights-store.ts';
import { hashNewPassword, setPasswordHash } from '../principals/store.ts';
import { findHumanByEmail, type PrincipalView } from '../principals/view.ts';
import { COMMAND, recordAsRequest } from '../admin-log/command-record.ts';
import type { WithDatabase } from './with-database.ts';

/**
 * An existing person made a platform admin, as the API does it: the identity right given through the rights store
 * (`console_rights.set`), and with `password` their password replaced (`principal.password.set`), in one transaction.
 */
async function promote(
  db: Database,
  person: PrincipalView,
  password: string | undefined,
  config: IdentityConfig,
): Promise<void> {
  const hash = password === undefined ? undefined : await hashNewPassword(password);
  await db.transaction(async (tx) => {
    await grantConsoleRight(tx, {
      principalId: person.id,
      right: 'identity',
      catalog: consoleCatalog(config),
      actor: COMMAND,
    });
    if (hash === undefined) return;
    await setPasswordHash(tx, person.id, hash);
    await recordAsRequest(tx, {
      method: 'PUT',
      route: '/principals/:id/password',
      params: { id: person.id },
      body: { password },
    });
  });
}

/** `platform identity admin create`: a platform admin, or an existing person made one; recorded with the actor `command`. */
export function createAdminCommand(withDatabase: WithDatabase, config: IdentityConfig): Command {
  return {
    path: ['admin', 'create'],
    synopsis: '--email EMAIL [--password PASSWORD] [--name NAME]',
    summary: 'make a platform admin (a password is generated and shown once if omitted)',
    details: [
      'an existing account with this email becomes a platform admin (its password is replaced only if --password is given)',
      'recorded in the change log (GET /api/v1/admin-log) with the actor "command", the password never',
    ],
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
    required: ['email'],
    run: ({ values, result }) =>
      withDatabase(async (db) => {
        const email = str(values, 'email')!;
        const given = str(values, 'password');
        const existing = await findHumanByEmail(db, email);
        if (existing) {
          await promote(db, existing, given, config);
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
        // What POST /api/v1/principals would be sent for the same admin, created by the function that route calls.
        const body = {
          type: 'human' as const,
          email,
          password: given ?? generated!,
          display_name: str(values, 'name'),
          is_platform_admin: true,
          email_verified: true,
        };
        const human = await createPrincipal({ db, scopes: [] }, body, (tx, made) =>
          recordAsRequest(tx, { method: 'POST', route: '/principals', body, answer: { id: made.id } }),
        );
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
