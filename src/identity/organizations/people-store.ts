import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import { normaliseEmail } from '../principals/view.ts';
import type { Membership } from './store.ts';

/** Who a member is, as a list of members shows them: enough to recognise them without a request per row. */
export interface MemberPerson {
  id: string;
  type: string;
  identifier: string;
  display_name: string;
  email: string | null;
  active: boolean;
}

export interface MemberWithPerson extends Membership {
  principal: MemberPerson;
}

const COLUMNS = `m.id, m.organization_id, m.principal_id, m.role, m.permissions, m.active,
  ${isoUtc('m.created_at')} AS created_at, ${isoUtc('m.updated_at')} AS updated_at,
  jsonb_build_object('id', p.id, 'type', p.type, 'identifier', p.identifier, 'display_name', p.display_name,
                     'email', h.email, 'active', p.active) AS principal`;
const FROM = `principal_memberships m JOIN principals p ON p.id = m.principal_id
  LEFT JOIN humans h ON h.principal_id = p.id`;

/** An organization's memberships with their principals, in principal id order after the cursor (as listMembers). */
export async function listMemberPeople(
  db: Queryable,
  organizationId: string,
  f: { active?: boolean | undefined; limit: number; after?: string | undefined },
): Promise<MemberWithPerson[]> {
  const r = await db.query<MemberWithPerson>(
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE m.organization_id = $1 AND ($2::boolean IS NULL OR m.active = $2) AND ($3::uuid IS NULL OR m.principal_id > $3)
      ORDER BY m.principal_id LIMIT $4`,
    [organizationId, f.active ?? null, f.after ?? null, f.limit],
  );
  return r.rows;
}

/** The principal a person typed: a person's email (any case), else any principal's identifier, exactly. */
async function principalIdOf(db: Queryable, identifier: string): Promise<string | undefined> {
  const r = await db.query<{ id: string }>(
    `SELECT p.id FROM principals p LEFT JOIN humans h ON h.principal_id = p.id
      WHERE lower(h.email) = $1 OR p.identifier = $2
      ORDER BY (lower(h.email) = $1) DESC NULLS LAST LIMIT 1`,
    [normaliseEmail(identifier), identifier.trim()],
  );
  return r.rows[0]?.id;
}

/**
 * Makes the principal named by `identifier` an active member with `role`: a new membership, or the one it had before
 * it was removed, made active again with the role given. 404 when nobody has that email or identifier; 409 when they
 * are an active member already (change their role instead). One transaction, so two admins adding the same person at
 * once make one membership.
 */
export async function addMemberByIdentifier(
  db: Database,
  organizationId: string,
  identifier: string,
  role: string,
): Promise<{ member: MemberWithPerson; rejoined: boolean }> {
  return db.transaction(async (tx) => {
    const principalId = await principalIdOf(tx, identifier);
    if (!principalId) throw new HttpError(404, 'NOT_FOUND', `no person or principal is known as ${identifier.trim()}`);
    const r = await tx.query<{ active: boolean; inserted: boolean }>(
      `INSERT INTO principal_memberships (organization_id, principal_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (principal_id, organization_id) DO UPDATE
         SET role = EXCLUDED.role, active = true, updated_at = now()
         WHERE NOT principal_memberships.active
       RETURNING (xmax = 0) AS inserted, active`,
      [organizationId, principalId, role],
    );
    if (r.rows.length === 0)
      throw new HttpError(409, 'CONFLICT', `${identifier.trim()} is a member already: change their role instead`);
    const member = await tx.query<MemberWithPerson>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE m.organization_id = $1 AND m.principal_id = $2`,
      [organizationId, principalId],
    );
    return { member: member.rows[0]!, rejoined: !r.rows[0]!.inserted };
  });
}
