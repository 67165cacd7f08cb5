import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { MIN_PASSWORD_LENGTH, createHuman } from './store.ts';
import { findHumanByEmail } from './view.ts';

export { MIN_PASSWORD_LENGTH };

/**
 * The first owner of a service started beside identity (the dashboard's first run, src/platform/links.ts) gets an
 * account here to sign in with: a human with that email, marked verified (the person typing it is the one who will
 * sign in with it, and the dashboard matches its owner on a verified email) and the password, hashed like every other
 * (scrypt). Only when no principal has that email: an existing account is never changed, its own password stays.
 */
export async function ensureOwnerAccount(
  db: Database,
  input: { email: string; name: string; password: string },
): Promise<'created' | 'existing'> {
  if (await findHumanByEmail(db, input.email)) return 'existing';
  try {
    await createHuman(db, {
      email: input.email,
      displayName: input.name,
      password: input.password,
      emailVerified: true,
    });
    return 'created';
  } catch (err) {
    // Made by someone else between the look-up and the insert: theirs stays.
    if (err instanceof HttpError && err.statusCode === 409) return 'existing';
    throw err;
  }
}
