import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { hashSecret } from '../../kit/crypto.ts';
import { applyConsoleRights } from './rights-store.ts';
import type { ConsoleRight } from '../principals/console-rights.ts';
import { MIN_PASSWORD_LENGTH, insertHuman } from '../principals/store.ts';
import { findHumanByEmail } from '../principals/view.ts';

export { MIN_PASSWORD_LENGTH };

/**
 * The first owner of a service started beside identity (the dashboard's first run, src/platform/links.ts) gets an
 * account here to sign in with: a human with that email, marked verified (the person typing it is the one who will
 * sign in with it, and the dashboard matches its owner on a verified email) and the password, hashed like every other
 * (scrypt), holding every console right in `rights` (recorded as given by the platform), in one transaction. Only when no
 * principal has that email: an existing account is never changed, its own password and rights stay.
 */
export async function ensureOwnerAccount(
  db: Database,
  input: { email: string; name: string; password: string },
  rights: readonly ConsoleRight[] = [],
): Promise<'created' | 'existing'> {
  if (await findHumanByEmail(db, input.email)) return 'existing';
  if (input.password.length < MIN_PASSWORD_LENGTH)
    throw new HttpError(400, 'VALIDATION_ERROR', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const hash = await hashSecret(input.password);
  try {
    await db.transaction(async (tx) => {
      const owner = await insertHuman(tx, { email: input.email, displayName: input.name, emailVerified: true }, hash);
      if (rights.length)
        await applyConsoleRights(tx, {
          principalId: owner.id,
          wanted: rights.map((r) => r.name),
          catalog: rights,
          actor: { kind: 'platform' },
        });
    });
    return 'created';
  } catch (err) {
    // Made by someone else between the look-up and the insert: theirs stays.
    if ((err as { code?: string }).code === '23505') return 'existing';
    throw err;
  }
}
