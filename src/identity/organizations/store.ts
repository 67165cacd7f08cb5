import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';

export const ORG_TYPES = ['personal', 'team', 'enterprise'] as const;
export type OrgType = (typeof ORG_TYPES)[number];

export interface Organization {
  id: string;
  name: string;
  slug: string;
  org_type: OrgType;
  logo_url: string | null;
  brand_color: string | null;
  description: string | null;
  website_url: string | null;
  settings: Record<string, unknown> | null;
  active: boolean;
  owner_principal_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface Membership {
  id: string;
  organization_id: string;
  principal_id: string;
  role: string;
  permissions: string[] | null;
  active: boolean;
  created_at: string;
  updated_at: string;
}

const ORG_COLUMNS = `id, name, slug, org_type, logo_url, brand_color, description, website_url, settings, active, owner_principal_id,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;
const MEMBER_COLUMNS = `id, organization_id, principal_id, role, permissions, active,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function refused(err: unknown, conflict: string): never {
  const code = (err as { code?: string }).code;
  if (code === '23505') throw new HttpError(409, 'CONFLICT', conflict);
  if (code === '23503') throw new HttpError(400, 'VALIDATION_ERROR', 'a referenced principal does not exist');
  throw err;
}

export interface OrganizationFields {
  name?: string | undefined;
  slug?: string | undefined;
  orgType?: OrgType | undefined;
  logoUrl?: string | null | undefined;
  brandColor?: string | null | undefined;
  description?: string | null | undefined;
  websiteUrl?: string | null | undefined;
  settings?: Record<string, unknown> | null | undefined;
  ownerPrincipalId?: string | null | undefined;
  active?: boolean | undefined;
}

function checkSlug(slug: string | undefined): void {
  if (slug !== undefined && !SLUG.test(slug))
    throw new HttpError(400, 'VALIDATION_ERROR', 'slug must be 1 to 63 lower-case letters, digits and inner hyphens');
}

export async function createOrganization(
  db: Database,
  f: OrganizationFields & { name: string; slug: string },
): Promise<Organization> {
  checkSlug(f.slug);
  if (!f.name.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'name must not be empty');
  try {
    const r = await db.query<Organization>(
      `INSERT INTO organizations (name, slug, org_type, logo_url, description, website_url, settings, owner_principal_id, brand_color)
       VALUES ($1, $2, coalesce($3, 'team'), $4, $5, $6, $7, $8, $9) RETURNING ${ORG_COLUMNS}`,
      [
        f.name.trim(),
        f.slug,
        f.orgType ?? null,
        f.logoUrl ?? null,
        f.description ?? null,
        f.websiteUrl ?? null,
        f.settings ? JSON.stringify(f.settings) : null,
        f.ownerPrincipalId ?? null,
        f.brandColor ?? null,
      ],
    );
    return r.rows[0]!;
  } catch (err) {
    refused(err, `an organization with slug "${f.slug}" already exists`);
  }
}

export async function findOrganization(db: Queryable, id: string): Promise<Organization | undefined> {
  return (await db.query<Organization>(`SELECT ${ORG_COLUMNS} FROM organizations WHERE id = $1`, [id])).rows[0];
}

/** The organization with this id, or 404 naming it: for the routes under /api/v1/organizations/:id. */
export async function existingOrganization(db: Queryable, id: string): Promise<Organization> {
  const o = await findOrganization(db, id);
  if (!o) throw new HttpError(404, 'NOT_FOUND', `no organization ${id}`);
  return o;
}

export async function listOrganizations(
  db: Queryable,
  f: { orgType?: OrgType | undefined; active?: boolean | undefined; limit: number; after?: string | undefined },
): Promise<Organization[]> {
  const r = await db.query<Organization>(
    `SELECT ${ORG_COLUMNS} FROM organizations
      WHERE ($1::text IS NULL OR org_type = $1) AND ($2::boolean IS NULL OR active = $2) AND ($3::uuid IS NULL OR id > $3)
      ORDER BY id LIMIT $4`,
    [f.orgType ?? null, f.active ?? null, f.after ?? null, f.limit],
  );
  return r.rows;
}

export async function updateOrganization(
  db: Database,
  id: string,
  f: OrganizationFields,
): Promise<Organization | undefined> {
  checkSlug(f.slug);
  const sets: string[] = [];
  const values: unknown[] = [id];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (f.name !== undefined) set('name', f.name.trim());
  if (f.slug !== undefined) set('slug', f.slug);
  if (f.orgType !== undefined) set('org_type', f.orgType);
  if (f.logoUrl !== undefined) set('logo_url', f.logoUrl);
  if (f.brandColor !== undefined) set('brand_color', f.brandColor);
  if (f.description !== undefined) set('description', f.description);
  if (f.websiteUrl !== undefined) set('website_url', f.websiteUrl);
  if (f.settings !== undefined) set('settings', f.settings === null ? null : JSON.stringify(f.settings));
  if (f.ownerPrincipalId !== undefined) set('owner_principal_id', f.ownerPrincipalId);
  if (f.active !== undefined) set('active', f.active);
  try {
    const r = await db.query<Organization>(
      `UPDATE organizations SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${ORG_COLUMNS}`,
      values,
    );
    return r.rows[0];
  } catch (err) {
    refused(err, `an organization with slug "${f.slug}" already exists`);
  }
}

export async function addMember(
  db: Database,
  organizationId: string,
  principalId: string,
  role: string,
  permissions: string[] | undefined,
): Promise<Membership> {
  try {
    const r = await db.query<Membership>(
      `INSERT INTO principal_memberships (organization_id, principal_id, role, permissions) VALUES ($1, $2, $3, $4) RETURNING ${MEMBER_COLUMNS}`,
      [organizationId, principalId, role, permissions ? JSON.stringify(permissions) : null],
    );
    return r.rows[0]!;
  } catch (err) {
    refused(err, 'this principal already has a membership in this organization (reactivate it with PATCH)');
  }
}

export async function listMembers(
  db: Queryable,
  organizationId: string,
  f: { active?: boolean | undefined; limit: number; after?: string | undefined },
): Promise<Membership[]> {
  const r = await db.query<Membership>(
    `SELECT ${MEMBER_COLUMNS} FROM principal_memberships
      WHERE organization_id = $1 AND ($2::boolean IS NULL OR active = $2) AND ($3::uuid IS NULL OR principal_id > $3)
      ORDER BY principal_id LIMIT $4`,
    [organizationId, f.active ?? null, f.after ?? null, f.limit],
  );
  return r.rows;
}

export async function findMembership(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Membership | undefined> {
  return (
    await db.query<Membership>(
      `SELECT ${MEMBER_COLUMNS} FROM principal_memberships WHERE organization_id = $1 AND principal_id = $2`,
      [organizationId, principalId],
    )
  ).rows[0];
}

export async function updateMember(
  db: Database,
  organizationId: string,
  principalId: string,
  f: { role?: string | undefined; permissions?: string[] | null | undefined; active?: boolean | undefined },
): Promise<Membership | undefined> {
  const r = await db.query<Membership>(
    `UPDATE principal_memberships SET role = coalesce($3, role),
        permissions = CASE WHEN $4::boolean THEN $5::jsonb ELSE permissions END,
        active = coalesce($6, active), updated_at = now()
      WHERE organization_id = $1 AND principal_id = $2 RETURNING ${MEMBER_COLUMNS}`,
    [
      organizationId,
      principalId,
      f.role ?? null,
      f.permissions !== undefined,
      f.permissions ? JSON.stringify(f.permissions) : null,
      f.active ?? null,
    ],
  );
  return r.rows[0];
}

/** The role of the principal's active membership in an active organization, or undefined. */
export async function activeRole(
  db: Queryable,
  organizationId: string,
  principalId: string | undefined,
): Promise<string | undefined> {
  if (!principalId) return undefined;
  const r = await db.query<{ role: string }>(
    `SELECT m.role FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE m.organization_id = $1 AND m.principal_id = $2 AND m.active AND o.active`,
    [organizationId, principalId],
  );
  return r.rows[0]?.role;
}
