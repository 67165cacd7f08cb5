import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import type { ProviderIdentity } from '../../kit/upstream-login/provider.ts';
import { createHuman } from '../principals/store.ts';
import { findHumanByEmail, normaliseEmail } from '../principals/view.ts';
import { en, type Messages } from '../web/i18n/en.ts';

/** Why an upstream sign-in was refused, in words shown to the person in the page's language (`say`); English as the message. */
export class SignInRefused extends Error {
  readonly say: (t: Messages['social']) => string;
  constructor(say: (t: Messages['social']) => string) {
    super(say(en.social));
    this.say = say;
  }
}

export interface Resolved {
  principalId: string;
  /** How the principal was found: an earlier link, a first link by verified email, or a new account. */
  how: 'known' | 'linked' | 'created';
}

/**
 * The principal an upstream account signs in as.
 * 1. (provider, subject) already linked: that principal, whatever email the provider reports now.
 * 2. Otherwise, a human whose email the platform has verified and the provider reports verified too:
 *    linked to it. An email verified on one side only is never enough: anyone can claim an address
 *    at a provider that does not check it, and the platform's own record may be a typo.
 * 3. Otherwise a new human (email verified when the provider says so), unless the configuration
 *    says `refuse`; and never when a human already holds that email (it could not be linked above).
 */
export async function resolvePrincipal(
  db: Database,
  providerId: string,
  who: ProviderIdentity,
  signup: 'create' | 'refuse',
): Promise<Resolved> {
  const known = await db.query<{ principal_id: string; active: boolean; type: string }>(
    `UPDATE external_identities e SET email = $3, email_verified = $4, last_login_at = now(), updated_at = now()
       FROM principals p WHERE p.id = e.principal_id AND e.provider = $1 AND e.subject = $2
     RETURNING e.principal_id, p.active, p.type`,
    [providerId, who.subject, who.email ?? null, who.emailVerified],
  );
  if (known.rows[0]) return { principalId: known.rows[0].principal_id, how: 'known' };

  const email = who.email ? normaliseEmail(who.email) : undefined;
  const existing = email ? await findHumanByEmail(db, email) : undefined;
  if (existing) {
    if (!who.emailVerified || !existing.human?.emailVerifiedAt) {
      const byPlatform = who.emailVerified;
      throw new SignInRefused((t) => t.unverified(email!, byPlatform));
    }
    return { principalId: await link(db, providerId, who, existing.id), how: 'linked' };
  }
  if (signup === 'refuse') throw new SignInRefused((t) => t.noSignup);
  if (!email) throw new SignInRefused((t) => t.noEmail);
  let created: string;
  try {
    created = (await createHuman(db, { email, displayName: who.name, emailVerified: who.emailVerified })).id;
  } catch (err) {
    // Someone made an account with this email a moment ago: start again, it will be found (or refused) above.
    if (err instanceof HttpError && err.statusCode === 409) return resolvePrincipal(db, providerId, who, signup);
    throw err;
  }
  const principalId = await link(db, providerId, who, created);
  if (principalId !== created) await db.query('DELETE FROM principals WHERE id = $1', [created]);
  return { principalId, how: principalId === created ? 'created' : 'known' };
}

/** Links the upstream account; when a concurrent first sign-in linked it already, that link wins. */
async function link(db: Database, providerId: string, who: ProviderIdentity, principalId: string): Promise<string> {
  const r = await db.query<{ principal_id: string }>(
    `INSERT INTO external_identities (provider, subject, email, email_verified, last_login_at, principal_id)
     VALUES ($1, $2, $3, $4, now(), $5) ON CONFLICT (provider, subject) DO NOTHING RETURNING principal_id`,
    [providerId, who.subject, who.email ?? null, who.emailVerified, principalId],
  );
  if (r.rows[0]) return r.rows[0].principal_id;
  return (
    await db.query<{ principal_id: string }>(
      'SELECT principal_id FROM external_identities WHERE provider = $1 AND subject = $2',
      [providerId, who.subject],
    )
  ).rows[0]!.principal_id;
}
