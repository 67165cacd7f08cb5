import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';

/** One of a principal's organization memberships, with the organization's name: what the console's person page lists. */
export interface MembershipOut {
  id: string;
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  organization_active: boolean;
  role: string;
  permissions: string[] | null;
  active: boolean;
  created_at: string;
}

/** A principal's memberships, oldest first, `limit` of them after `after`. */
export async function listMembershipsOf(
  db: Queryable,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(MembershipOut & { position: [string, string] })[]> {
  const r = await db.query<MembershipOut & { sort_at: string }>(
    `SELECT m.id, m.organization_id, o.name AS organization_name, o.slug AS organization_slug, o.active AS organization_active,
            m.role, m.permissions, m.active, ${isoUtc('m.created_at')} AS created_at, m.created_at::text AS sort_at
       FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE m.principal_id = $1 AND ($2::timestamptz IS NULL OR (m.created_at, m.id) > ($2::timestamptz, $3::uuid))
      ORDER BY m.created_at, m.id LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...m }) => ({ ...m, position: [sort_at, m.id] }));
}
