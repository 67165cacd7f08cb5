import type { Database } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { ProviderIdentity } from '../../kit/upstream-login/provider.ts';

export interface LinkedAccount {
  id: string;
  provider: string;
  email: string | null;
  createdAt: string;
  lastLoginAt: string | null;
}

export async function linkedAccounts(db: Database, principalId: string): Promise<LinkedAccount[]> {
  const r = await db.query<LinkedAccount>(
    `SELECT id, provider, email, ${isoUtc('created_at')} AS "createdAt", ${isoUtc('last_login_at')} AS "lastLoginAt"
       FROM external_identities WHERE principal_id = $1 ORDER BY provider, created_at, id`,
    [principalId],
  );
  return r.rows;
}

/** `taken`: the upstream account signs someone else in here, and stays theirs. */
export type LinkResult = 'linked' | 'already' | 'taken';

/**
 * Links an upstream account to the signed-in person who asked for it. Unlike a first sign-in (link.ts) no email has to
 * match: the person proved both sides in one browser (signed in here, then at the provider). (provider, subject) is
 * unique, so of two people racing for one upstream account exactly one gets it.
 */
export async function linkToPerson(
  db: Database,
  provider: string,
  who: ProviderIdentity,
  principalId: string,
): Promise<LinkResult> {
  const r = await db.query<{ principal_id: string; inserted: boolean }>(
    `INSERT INTO external_identities (provider, subject, email, email_verified, principal_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (provider, subject) DO UPDATE SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified, updated_at = now()
       WHERE external_identities.principal_id = EXCLUDED.principal_id
     RETURNING principal_id, xmax = 0 AS inserted`,
    [provider, who.subject, who.email ?? null, who.emailVerified, principalId],
  );
  if (!r.rows[0]) return 'taken';
  return r.rows[0].inserted ? 'linked' : 'already';
}

export type UnlinkResult = 'unlinked' | 'not_found' | 'last';

/**
 * Unlinks one of the person's upstream accounts, unless it is their last way to sign in: no live password or passkey,
 * and no other linked account of a provider configured here (`usable`). The principal's row is locked meanwhile, so
 * two unlinks at once cannot each leave the other as the last one and remove both.
 */
export async function unlinkFromPerson(
  db: Database,
  principalId: string,
  id: string,
  usable: readonly string[],
): Promise<UnlinkResult> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM principals WHERE id = $1 FOR UPDATE', [principalId]);
    const target = await tx.query('SELECT 1 FROM external_identities WHERE id = $1 AND principal_id = $2', [
      id,
      principalId,
    ]);
    if (target.rowCount === 0) return 'not_found';
    const other = await tx.query<{ ok: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM credentials WHERE principal_id = $1 AND type IN ('password', 'webauthn') AND active AND NOT revoked AND (expires_at IS NULL OR expires_at > now()))
           OR EXISTS (SELECT 1 FROM external_identities WHERE principal_id = $1 AND id <> $2 AND provider = ANY($3::text[])) AS ok`,
      [principalId, id, usable],
    );
    if (!other.rows[0]!.ok) return 'last';
    await tx.query('DELETE FROM external_identities WHERE id = $1 AND principal_id = $2', [id, principalId]);
    return 'unlinked';
  });
}

/** A linked account as the management API shows it. */
export type ExternalIdentity = {
  id: string;
  provider: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  last_login_at: string | null;
  principal_id: string;
  created_at: string;
  updated_at: string;
};
const COLUMNS = `id, provider, subject, email, email_verified, ${isoUtc('last_login_at')} AS last_login_at, principal_id, ${isoUtc('created_at')} AS created_at, ${isoUtc('updated_at')} AS updated_at`;

/** A principal's linked accounts in id order, `limit` of them after the id `after`. */
export async function listExternalIdentities(
  db: Database,
  principalId: string,
  page: { limit: number; after?: string | undefined },
): Promise<ExternalIdentity[]> {
  const r = await db.query<ExternalIdentity>(
    `SELECT ${COLUMNS} FROM external_identities WHERE principal_id = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [principalId, page.after ?? null, page.limit],
  );
  return r.rows;
}

/** An admin unlinks one of the principal's accounts (its next sign-in is a first one again); false when there is none. */
export async function removeExternalIdentity(db: Database, principalId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM external_identities WHERE id = $1 AND principal_id = $2', [id, principalId]);
  return r.rowCount > 0;
}
