import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import type { ScimConnection } from '../access/scim.ts';
import { ADMIN_SCOPE } from '../config.ts';
import { recordChange } from '../events/record.ts';
import { scimError } from './errors.ts';
import type { ScimEmail, UserRecord } from './user.ts';

/**
 * Adoption: a connection an admin allowed to (`adopt_existing`, off by default) links a person the platform had before
 * it was connected, the first time the directory pushes their email, instead of answering 409 `uniqueness`; what
 * Okta's and Entra ID's matching on userName expects. The person is then the connection's like one it made: it sees
 * them, changes them, deactivates them. Adoption itself changes nothing about them (password, sessions, tokens,
 * memberships stay); it is recorded as `principal.adopt` with the connection as actor.
 *
 * Never adopted: a platform admin (the `admin` flag or scope: a directory must not be able to deactivate or rename the
 * platform's administrators), a deactivated person (an admin shut them out; the directory's push would let them back
 * in), a person another connection provisioned (two directories would overwrite each other).
 */

/** Who holds an email (or an id) now, as the checks of a push need them. */
export interface Holder {
  id: string;
  /** This connection provisioned them (or adopted them). */
  ours: boolean;
  /** This connection deleted them since (a POST brings them back). */
  deleted: boolean;
  /** Some connection, this one or another, provisioned them. */
  linked: boolean;
  admin: boolean;
  active: boolean;
}

const HOLDER = `SELECT h.principal_id AS id, coalesce(u.connection_id = $2, false) AS ours,
    u.deleted_at IS NOT NULL AS deleted, u.principal_id IS NOT NULL AS linked, p.active,
    (h.is_platform_admin OR p.allowed_scopes ? $3) AS admin
  FROM humans h JOIN principals p ON p.id = h.principal_id LEFT JOIN scim_users u ON u.principal_id = h.principal_id`;

/** The person signing in with this email, their row locked for the caller's transaction. */
export async function holderOf(db: Queryable, connectionId: string, email: string): Promise<Holder | undefined> {
  const r = await db.query<Holder>(`${HOLDER} WHERE lower(h.email) = lower($1) FOR UPDATE OF h`, [
    email,
    connectionId,
    ADMIN_SCOPE,
  ]);
  return r.rows[0];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function holderById(db: Queryable, connectionId: string, id: string): Promise<Holder | undefined> {
  if (!UUID.test(id)) return undefined;
  const r = await db.query<Holder>(`${HOLDER} WHERE h.principal_id = $1 FOR UPDATE OF h`, [
    id,
    connectionId,
    ADMIN_SCOPE,
  ]);
  return r.rows[0];
}

/** Why this connection may not have a person another path made: the 409's detail, or undefined when it may adopt them. */
export function refusal(connection: ScimConnection, holder: Holder): string | undefined {
  if (holder.linked) return 'userName is taken: another SCIM connection provisioned this person';
  if (!connection.adoptExisting)
    return 'userName is taken: a person this connection did not provision signs in with this email (an admin may let the connection adopt existing people)';
  if (holder.admin) return 'userName is taken by a platform admin, whom a SCIM connection never adopts';
  if (!holder.active)
    return 'userName is taken by a deactivated person, whom a SCIM connection never adopts (an admin may reactivate them first)';
  return undefined;
}

/**
 * Links the person to the connection with the directory's own values, and records it, in the caller's transaction
 * (holding the person's row). A link another connection made meanwhile is the same 409 as the check before it.
 */
export async function adopt(
  tx: Queryable,
  connection: ScimConnection,
  id: string,
  externalId: string | null,
  emails: ScimEmail[],
): Promise<void> {
  await tx
    .query('INSERT INTO scim_users (principal_id, connection_id, external_id, emails) VALUES ($1, $2, $3, $4)', [
      id,
      connection.id,
      externalId,
      JSON.stringify(emails),
    ])
    .catch((err: { code?: string }) => {
      if (err.code === '23505')
        throw scimError(409, 'uniqueness', 'userName is taken: another SCIM connection provisioned this person');
      throw err;
    });
  await recordChange(tx, {
    actor: { kind: 'scim', id: connection.id },
    action: 'principal.adopt',
    target: { type: 'principal', id },
    before: null,
    after: { scim_connection_id: connection.id, external_id: externalId },
  });
}

/**
 * A PUT or PATCH of a person the connection found by its userName filter (adoptable below) but has not linked: the
 * directory's next step after a match, so the person is adopted then, before the change. False when they are not
 * adoptable (the caller's 404).
 */
export async function adoptById(tx: Queryable, connection: ScimConnection, id: string): Promise<boolean> {
  if (!connection.adoptExisting) return false;
  const holder = await holderById(tx, connection.id, id);
  if (!holder || refusal(connection, holder)) return false;
  await adopt(tx, connection, id, null, []);
  return true;
}

/**
 * A person the connection could adopt, as SCIM would show them before it does (no externalId, their sign-in email as
 * their one address): what its `userName eq` filter and GET by id answer, so a directory's match step finds them.
 * Nothing is written: the link is made by the directory's POST, PUT or PATCH.
 */
export async function adoptable(
  db: Queryable,
  connection: ScimConnection,
  by: { email: string } | { id: string },
): Promise<UserRecord | undefined> {
  if (!connection.adoptExisting) return undefined;
  if ('id' in by && !UUID.test(by.id)) return undefined;
  const r = await db.query<{
    id: string;
    user_name: string;
    given_name: string | null;
    family_name: string | null;
    display_name: string;
    active: boolean;
    created: string;
    last_modified: string;
  }>(
    `SELECT p.id, h.email AS user_name, h.given_name, h.family_name, p.display_name, p.active,
        ${isoUtc('p.created_at')} AS created, ${isoUtc('greatest(p.updated_at, h.updated_at)')} AS last_modified
       FROM humans h JOIN principals p ON p.id = h.principal_id
      WHERE ${'id' in by ? 'p.id = $1' : 'lower(h.email) = lower($1)'} AND p.active
        AND NOT h.is_platform_admin AND NOT p.allowed_scopes ? $2
        AND NOT EXISTS (SELECT 1 FROM scim_users u WHERE u.principal_id = p.id)`,
    ['id' in by ? by.id : by.email, ADMIN_SCOPE],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    userName: row.user_name,
    givenName: row.given_name,
    familyName: row.family_name,
    displayName: row.display_name,
    externalId: null,
    emails: [],
    active: row.active,
    created: row.created,
    lastModified: row.last_modified,
  };
}
