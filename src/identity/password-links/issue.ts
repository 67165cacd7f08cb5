import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { normaliseEmail } from '../principals/view.ts';

export interface IssueLinkInput {
  /** The person: by principal id (identity's API) or by email (the dashboard, which knows people by email). */
  who: { principalId: string } | { email: string };
  ttlSeconds: number;
  /** Where the page's "Sign in" leads afterwards; absent, where the person's latest link led (else identity's sign-in). */
  continueTo?: string | undefined;
  /**
   * For callers less trusted than a platform admin (a dashboard's admin): only an account a choose-your-password link
   * made, and never a platform admin's, so such a caller cannot obtain a way into an account identity's admins made.
   */
  onlyLinkMade?: boolean;
}

const conflict = (message: string) => new HttpError(409, 'CONFLICT', message);

/**
 * A fresh one-time choose-your-password link for a person who has no way to sign in yet (Okta's "resend activation":
 * for an account not activated, never a reset of a working one). Their older unused links are marked replaced in the
 * same transaction, so only the newest works. Refused (409, with why) once the person has a password, a passkey or a
 * linked account, or is deactivated; 404 for nobody.
 */
export async function issueSetupLink(
  db: Database,
  input: IssueLinkInput,
): Promise<{ token: string; expiresAt: string; email: string; principalId: string }> {
  // 256 random bits, answered once; only the SHA-256 is stored.
  const token = randomToken(32);
  return db.transaction(async (tx) => {
    const person = await lockPerson(tx, input.who);
    if (!person.active) throw conflict('the account is deactivated: activate it before sending a password link');
    if (input.onlyLinkMade && (person.is_platform_admin || !person.link_made)) {
      throw conflict(
        "the account was not made with a choose-your-password link (it existed before): ask the platform's administrator",
      );
    }
    // Before the checks below, not after: this waits for a post of an older link that is setting a password right now,
    // so the password check then sees it and no new link is made for someone who just chose one.
    const replaced = await tx.query<{ continue_to: string | null }>(
      `UPDATE password_links SET replaced_at = now() WHERE principal_id = $1 AND used_at IS NULL AND replaced_at IS NULL RETURNING continue_to`,
      [person.id],
    );
    const ways = await signInWays(tx, person.id);
    if (ways.password)
      throw conflict(
        'the person already has a password: they sign in with it, and change it on their account page; a new link is only for someone who has not chosen one yet',
      );
    if (ways.passkey || ways.linked)
      throw conflict(
        `the person already signs in ${ways.passkey ? 'with a passkey' : 'with a linked account'}: a password link is only for someone with no way to sign in yet`,
      );
    const continueTo =
      input.continueTo ??
      replaced.rows.find((r) => r.continue_to)?.continue_to ??
      (await latestContinueTo(tx, person.id));
    const r = await tx.query<{ expires_at: string }>(
      `INSERT INTO password_links (token_hash, principal_id, purpose, expires_at, continue_to)
       VALUES ($1, $2, 'setup', now() + make_interval(secs => $3), $4)
       RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS expires_at`,
      [sha256Hex(token), person.id, input.ttlSeconds, continueTo ?? null],
    );
    return { token, expiresAt: r.rows[0]!.expires_at, email: person.email, principalId: person.id };
  });
}

interface Person {
  id: string;
  type: string;
  active: boolean;
  email: string;
  is_platform_admin: boolean;
  link_made: boolean;
}

/** The human, locked: two links issued at once are made one after the other, so exactly one stays open. */
async function lockPerson(tx: Queryable, who: IssueLinkInput['who']): Promise<Person> {
  const byId = 'principalId' in who;
  const r = await tx.query<Person>(
    `SELECT p.id, p.type, p.active, h.email, coalesce(h.is_platform_admin, false) AS is_platform_admin,
            EXISTS (SELECT 1 FROM password_links l WHERE l.principal_id = p.id AND l.purpose = 'setup') AS link_made
       FROM principals p LEFT JOIN humans h ON h.principal_id = p.id
      WHERE ${byId ? 'p.id = $1' : "p.type = 'human' AND lower(h.email) = $1"}
      FOR UPDATE OF p`,
    [byId ? who.principalId : normaliseEmail(who.email)],
  );
  const person = r.rows[0];
  if (!person)
    throw new HttpError(404, 'NOT_FOUND', byId ? `no principal ${who.principalId}` : 'no account with this email');
  if (person.type !== 'human') throw new HttpError(400, 'VALIDATION_ERROR', 'only humans have passwords');
  return person;
}

async function signInWays(
  tx: Queryable,
  principalId: string,
): Promise<{ password: boolean; passkey: boolean; linked: boolean }> {
  const r = await tx.query<{ password: boolean; passkey: boolean; linked: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM credentials WHERE principal_id = $1 AND type = 'password' AND NOT revoked AND active) AS password,
            EXISTS (SELECT 1 FROM credentials WHERE principal_id = $1 AND type = 'webauthn' AND NOT revoked AND active) AS passkey,
            EXISTS (SELECT 1 FROM external_identities WHERE principal_id = $1) AS linked`,
    [principalId],
  );
  return r.rows[0]!;
}

async function latestContinueTo(tx: Queryable, principalId: string): Promise<string | null> {
  const r = await tx.query<{ continue_to: string | null }>(
    'SELECT continue_to FROM password_links WHERE principal_id = $1 AND continue_to IS NOT NULL ORDER BY created_at DESC LIMIT 1',
    [principalId],
  );
  return r.rows[0]?.continue_to ?? null;
}

/**
 * A mailed "forgot password" link for the active person with this email, or undefined when there is none (nobody,
 * not a human, deactivated): the caller answers the same either way. Their older unused links (of either purpose) are
 * marked replaced in the same transaction, so only the newest mailed one works.
 */
export async function issueResetLink(
  db: Database,
  email: string,
  ttlSeconds: number,
): Promise<{ token: string; email: string; expiresAt: string } | undefined> {
  const token = randomToken(32);
  return db.transaction(async (tx) => {
    const r = await tx.query<{ id: string; email: string }>(
      `SELECT p.id, h.email FROM principals p JOIN humans h ON h.principal_id = p.id
        WHERE p.type = 'human' AND p.active AND lower(h.email) = $1 FOR UPDATE OF p`,
      [normaliseEmail(email)],
    );
    const person = r.rows[0];
    if (!person) return undefined;
    await tx.query(
      'UPDATE password_links SET replaced_at = now() WHERE principal_id = $1 AND used_at IS NULL AND replaced_at IS NULL',
      [person.id],
    );
    const made = await tx.query<{ expires_at: string }>(
      `INSERT INTO password_links (token_hash, principal_id, purpose, expires_at)
       VALUES ($1, $2, 'reset', now() + make_interval(secs => $3))
       RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS expires_at`,
      [sha256Hex(token), person.id, ttlSeconds],
    );
    return { token, email: person.email, expiresAt: made.rows[0]!.expires_at };
  });
}
