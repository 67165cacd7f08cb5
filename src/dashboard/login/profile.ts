import type { Database } from '../../kit/db.ts';
import { getUser } from '../users/store.ts';
import type { SignInUser } from './mapping.ts';
import type { ProviderIdentity } from './provider.ts';

/** As the API's user names (`DisplayText(200)` in schemas.ts), counted in characters. */
const MAX_NAME = 200;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * The provider's name for the person, fit to be a user's name: control characters and runs of blanks become one
 * space, at most 200 characters. None when blank, or when it is only the email address (what identity shows for an
 * account without a display name), which would replace a real name with a worse one.
 */
export function providerName(who: Pick<ProviderIdentity, 'name' | 'email'>): string | undefined {
  const clean = (who.name ?? '').replace(/[\p{Cc}\s]+/gu, ' ').trim();
  const name = [...clean].slice(0, MAX_NAME).join('').trim();
  if (!name) return undefined;
  if (who.email && name.toLowerCase() === who.email.toLowerCase()) return undefined;
  return name;
}

/**
 * Document 1's sign-in "creates or updates the user": the provider's name, and its email when the provider verified
 * it, replace the user's at each sign-in. An email another user of the tenant has is left as it is (the user keeps
 * theirs); one that differs only in case is not a change. Answers the user as signed in and the fields changed.
 */
export async function updateProfileAtSignIn(
  db: Database,
  user: SignInUser,
  who: ProviderIdentity,
): Promise<{ user: SignInUser; updated: ('name' | 'email')[] }> {
  const current = await getUser(db, user.tenantId, user.id);
  if (!current) return { user, updated: [] };
  const updated: ('name' | 'email')[] = [];
  const name = providerName(who);
  if (name !== undefined && name !== current.name) {
    await db.query('UPDATE users SET name = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2', [
      user.tenantId,
      user.id,
      name,
    ]);
    updated.push('name');
  }
  const email = who.emailVerified && who.email && who.email.length <= 254 && EMAIL.test(who.email) ? who.email : '';
  let signedInAs = current.email;
  if (email && email.toLowerCase() !== current.email.toLowerCase()) {
    try {
      const { rowCount } = await db.query(
        `UPDATE users SET email = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2
           AND NOT EXISTS (SELECT 1 FROM users o WHERE o.tenant_id = $1 AND o.id <> $2 AND lower(o.email) = lower($3))`,
        [user.tenantId, user.id, email],
      );
      if (rowCount) {
        signedInAs = email;
        updated.push('email');
      }
    } catch (err) {
      // Another user took the address between the check and the update: this one keeps theirs.
      if ((err as { code?: string }).code !== '23505') throw err;
    }
  }
  return { user: { ...user, email: signedInAs }, updated };
}
