import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { applyPrincipalActive, insertHuman, setPasswordHash } from '../principals/store.ts';
import { scimError } from './errors.ts';
import type { SqlFilter } from './filter.ts';
import type { ScimEmail, UserRecord, UserValues } from './user.ts';

/**
 * The people a SCIM connection provisioned (scim_users, migration 027) with their principal and human rows. Aliases: p
 * principals, h humans, u scim_users (filter.ts's columns name them).
 */
const SELECT = `SELECT p.id, h.email AS user_name, h.given_name, h.family_name, p.display_name, u.external_id, u.emails,
    p.active, ${isoUtc('u.created_at')} AS created, ${isoUtc('greatest(p.updated_at, u.updated_at)')} AS last_modified
  FROM scim_users u JOIN principals p ON p.id = u.principal_id JOIN humans h ON h.principal_id = p.id`;

interface Row {
  id: string;
  user_name: string;
  given_name: string | null;
  family_name: string | null;
  display_name: string;
  external_id: string | null;
  emails: ScimEmail[];
  active: boolean;
  created: string;
  last_modified: string;
}

const record = (r: Row): UserRecord => ({
  id: r.id,
  userName: r.user_name,
  givenName: r.given_name,
  familyName: r.family_name,
  displayName: r.display_name,
  externalId: r.external_id,
  emails: r.emails,
  active: r.active,
  created: r.created,
  lastModified: r.last_modified,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One person of the connection, not deleted; locked for the caller's transaction with `lock`. */
export async function findUser(
  db: Queryable,
  connectionId: string,
  id: string,
  lock = false,
): Promise<UserRecord | undefined> {
  if (!UUID.test(id)) return undefined;
  const r = await db.query<Row>(
    `${SELECT} WHERE u.connection_id = $1 AND u.principal_id = $2 AND u.deleted_at IS NULL${lock ? ' FOR UPDATE OF u' : ''}`,
    [connectionId, id],
  );
  return r.rows[0] ? record(r.rows[0]) : undefined;
}

/** A page of the connection's people, oldest first (SCIM's paging is by position: `startIndex` from 1). */
export async function listUsers(
  db: Queryable,
  connectionId: string,
  filter: SqlFilter | undefined,
  startIndex: number,
  count: number,
): Promise<{ total: number; users: UserRecord[] }> {
  const where = `u.connection_id = $1 AND u.deleted_at IS NULL${filter ? ` AND ${filter.sql}` : ''}`;
  const params = [connectionId, ...(filter?.params ?? [])];
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM scim_users u JOIN principals p ON p.id = u.principal_id
       JOIN humans h ON h.principal_id = p.id WHERE ${where}`,
    params,
  );
  const rows =
    count === 0
      ? { rows: [] as Row[] }
      : await db.query<Row>(
          `${SELECT} WHERE ${where} ORDER BY u.created_at, u.principal_id LIMIT ${count} OFFSET ${startIndex - 1}`,
          params,
        );
  return { total: total.rows[0]!.n, users: rows.rows.map(record) };
}

/** The display name kept: the one given, else the two names, else the email (as a person made elsewhere). */
export function displayOf(u: UserValues): string {
  return u.displayName?.trim() || [u.givenName, u.familyName].filter(Boolean).join(' ') || u.userName;
}

const uniqueness = (err: unknown): never => {
  if ((err as { code?: string }).code === '23505')
    throw scimError(409, 'uniqueness', 'userName is taken: another person signs in with this email');
  throw err;
};

/** A new person and the connection's row of them, in the caller's transaction. */
export async function insertUser(
  tx: Queryable,
  connectionId: string,
  u: UserValues,
  passwordHash: string | undefined,
): Promise<string> {
  const human = { email: u.userName, displayName: displayOf(u), givenName: u.givenName, familyName: u.familyName };
  // A taken email here is a create racing another: the same 409 as the check before it.
  const { id } = await insertHuman(
    tx,
    { ...human, givenName: human.givenName ?? undefined, familyName: human.familyName ?? undefined },
    passwordHash,
  ).catch(uniqueness);
  await tx.query('INSERT INTO scim_users (principal_id, connection_id, external_id, emails) VALUES ($1, $2, $3, $4)', [
    id,
    connectionId,
    u.externalId,
    JSON.stringify(u.emails),
  ]);
  if (!u.active) await applyPrincipalActive(tx, id, false);
  return id;
}

/**
 * Writes a person's kept values as `after` says, in the caller's transaction: profile, email (a new one is unverified),
 * the directory's own values; a change of `active` through applyPrincipalActive, the platform's one rule. Undeletes a
 * person the connection deleted before (a POST of the same userName).
 */
export async function writeUser(
  tx: Queryable,
  id: string,
  before: UserValues,
  after: UserValues,
  passwordHash: string | undefined,
): Promise<void> {
  try {
    await tx.query(
      `UPDATE humans SET email = $2, given_name = $3, family_name = $4, updated_at = now(),
         email_verified_at = CASE WHEN lower(email) = lower($2) THEN email_verified_at END
       WHERE principal_id = $1`,
      [id, after.userName, after.givenName, after.familyName],
    );
    await tx.query('UPDATE principals SET identifier = $2, display_name = $3, updated_at = now() WHERE id = $1', [
      id,
      after.userName,
      displayOf(after),
    ]);
  } catch (err) {
    uniqueness(err);
  }
  await tx.query(
    'UPDATE scim_users SET external_id = $2, emails = $3, updated_at = now(), deleted_at = NULL WHERE principal_id = $1',
    [id, after.externalId, JSON.stringify(after.emails)],
  );
  if (passwordHash) await setPasswordHash(tx, id, passwordHash);
  if (after.active !== before.active) await applyPrincipalActive(tx, id, after.active);
}

/** RFC 7644 3.6: the person is deactivated (the platform's one rule) and no longer the connection's to see. */
export async function deleteUser(tx: Queryable, id: string): Promise<void> {
  await applyPrincipalActive(tx, id, false);
  await tx.query('UPDATE scim_users SET deleted_at = now(), updated_at = now() WHERE principal_id = $1', [id]);
}

/** A person's values now, deleted by the connection or not: the `before` of a person a POST brings back. */
export async function valuesOf(tx: Queryable, id: string): Promise<UserValues> {
  const r = await tx.query<Row>(`${SELECT} WHERE u.principal_id = $1`, [id]);
  return record(r.rows[0]!);
}
