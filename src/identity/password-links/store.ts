import type { Database } from '../../kit/db.ts';
import { hashSecret, randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { MIN_PASSWORD_LENGTH, insertHuman, setPasswordHash } from '../principals/store.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { endEverySessionAndToken } from '../sessions/store.ts';

/** Where the link opens, on the issuer; `?token=` is added. */
export const PASSWORD_LINK_PATH = '/account/choose-password';

/** The address a token is answered as: the page on the issuer, with the token in the query. */
export function passwordLinkUrl(issuer: string, token: string): string {
  const link = new URL(PASSWORD_LINK_PATH, issuer);
  link.searchParams.set('token', token);
  return link.href;
}

/** Why a link was made: an account's first password (an admin made it), or a new one the person asked for by mail. */
export type LinkPurpose = 'setup' | 'reset';

/** What a token opens: `open` may set a password; the others get a page saying why not. */
export type LinkState =
  | { state: 'open'; principalId: string; email: string; continueTo: string | null; purpose: LinkPurpose }
  | { state: 'used' | 'expired' | 'replaced'; email: string; purpose: LinkPurpose }
  | { state: 'unknown' };

/**
 * A new human with no password yet and a link to choose one, in one transaction: both or neither. An email any
 * principal already has answers `existing` and changes nothing (the person signs in with their own password, and no
 * caller may obtain a link that would set a password on someone's existing account).
 */
export async function createHumanWithSetupLink(
  db: Database,
  input: { email: string; name: string; ttlSeconds: number; continueTo?: string | undefined },
): Promise<{ status: 'created'; token: string; expiresAt: string } | { status: 'existing' }> {
  if (await findHumanByEmail(db, input.email)) return { status: 'existing' };
  // 256 random bits, shown once to the caller; only the SHA-256 is stored.
  const token = randomToken(32);
  try {
    const expiresAt = await db.transaction(async (tx) => {
      const human = await insertHuman(tx, { email: input.email, displayName: input.name });
      const r = await tx.query<{ expires_at: string }>(
        `INSERT INTO password_links (token_hash, principal_id, purpose, expires_at, continue_to)
         VALUES ($1, $2, 'setup', now() + make_interval(secs => $3), $4)
         RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS expires_at`,
        [sha256Hex(token), human.id, input.ttlSeconds, input.continueTo ?? null],
      );
      return r.rows[0]!.expires_at;
    });
    return { status: 'created', token, expiresAt };
  } catch (err) {
    // Made by someone else between the look-up and the insert: theirs stays, untouched.
    if ((err as { code?: string }).code === '23505') return { status: 'existing' };
    throw err;
  }
}

export async function readLink(db: Database, token: string): Promise<LinkState> {
  const r = await db.query<{
    principal_id: string;
    email: string;
    used: boolean;
    replaced: boolean;
    expired: boolean;
    continue_to: string | null;
    purpose: LinkPurpose;
  }>(
    `SELECT l.principal_id, h.email, l.purpose, l.used_at IS NOT NULL AS used, l.replaced_at IS NOT NULL AS replaced, l.expires_at <= now() AS expired, l.continue_to
       FROM password_links l JOIN humans h ON h.principal_id = l.principal_id
      WHERE l.token_hash = $1`,
    [sha256Hex(token)],
  );
  const row = r.rows[0];
  if (!row) return { state: 'unknown' };
  const known = { email: row.email, purpose: row.purpose };
  if (row.used) return { state: 'used', ...known };
  if (row.replaced) return { state: 'replaced', ...known };
  if (row.expired) return { state: 'expired', ...known };
  return { state: 'open', principalId: row.principal_id, continueTo: row.continue_to, ...known };
}

/**
 * Sets the password the link is for and spends the link, in one transaction: the conditional UPDATE lets exactly one of
 * two posts at once through. The email is marked verified: the link reached the person through someone who vouched for
 * the address (the admin who added them, or the mailbox a reset link was sent to), which is what the dashboard's matching
 * on a verified email relies on. A reset link also ends, in the same transaction, every session and token of the person:
 * whoever got in with the old password is out. Answers the link's state when it could not be used (spent meanwhile,
 * expired, unknown).
 */
export async function spendLink(
  db: Database,
  token: string,
  password: string,
): Promise<{ state: 'set'; principalId: string; email: string } | Exclude<LinkState, { state: 'open' }>> {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new HttpError(400, 'VALIDATION_ERROR', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  // The slow hash outside the transaction, so no row stays locked for it.
  const hash = await hashSecret(password);
  const spent = await db.transaction(async (tx) => {
    const r = await tx.query<{ principal_id: string; purpose: LinkPurpose }>(
      `UPDATE password_links SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND replaced_at IS NULL AND expires_at > now() RETURNING principal_id, purpose`,
      [sha256Hex(token)],
    );
    const principalId = r.rows[0]?.principal_id;
    if (!principalId) return undefined;
    await setPasswordHash(tx, principalId, hash);
    if (r.rows[0]!.purpose === 'reset') await endEverySessionAndToken(tx, principalId, 'password_reset');
    const h = await tx.query<{ email: string }>(
      'UPDATE humans SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now() WHERE principal_id = $1 RETURNING email',
      [principalId],
    );
    return { principalId, email: h.rows[0]!.email };
  });
  if (spent) return { state: 'set', ...spent };
  const now = await readLink(db, token);
  // Not spendable a moment ago, so not open now (a link is never re-opened); `used` covers the impossible case.
  return now.state === 'open' ? { state: 'used', email: now.email, purpose: now.purpose } : now;
}
