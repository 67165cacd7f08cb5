import type { Queryable } from '../../kit/db.ts';
import type { Plan } from '../auth/user.ts';

export interface Tenant {
  id: number;
  slug: string;
  name: string;
  plan: Plan;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: number;
  slug: string;
  name: string;
  plan: Plan;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, slug, name, plan, created_at, updated_at';

function toTenant(r: Row): Tenant {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    plan: r.plan,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export class TenantSlugTaken extends Error {}

export async function createTenant(db: Queryable, input: { slug: string; name: string; plan: Plan }): Promise<Tenant> {
  const { rows } = await db.query<Row>(
    `INSERT INTO tenants (slug, name, plan) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING RETURNING ${COLUMNS}`,
    [input.slug, input.name, input.plan],
  );
  if (!rows[0]) throw new TenantSlugTaken(`a tenant with slug "${input.slug}" already exists`);
  return toTenant(rows[0]);
}

export async function getTenant(db: Queryable, id: number): Promise<Tenant | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1`, [id]);
  return rows[0] ? toTenant(rows[0]) : undefined;
}

export async function findTenantBySlug(db: Queryable, slug: string): Promise<Tenant | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM tenants WHERE slug = $1`, [slug]);
  return rows[0] ? toTenant(rows[0]) : undefined;
}

export async function listTenants(db: Queryable): Promise<Tenant[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM tenants ORDER BY id`);
  return rows.map(toTenant);
}

/** The tenants in which a person (an email) is an active owner: what an owner administers. */
export async function tenantsOwnedBy(db: Queryable, email: string): Promise<Tenant[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `t.${c}`)
      .join(', ')} FROM tenants t
      WHERE EXISTS (SELECT 1 FROM users u WHERE u.tenant_id = t.id AND lower(u.email) = lower($1) AND u.role = 'owner' AND u.active)
      ORDER BY t.id`,
    [email],
  );
  return rows.map(toTenant);
}

export async function updateTenant(
  db: Queryable,
  id: number,
  changes: { name?: string | undefined; plan?: Plan | undefined },
): Promise<Tenant | undefined> {
  const { rows } = await db.query<Row>(
    `UPDATE tenants SET name = COALESCE($2, name), plan = COALESCE($3, plan), updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, changes.name ?? null, changes.plan ?? null],
  );
  return rows[0] ? toTenant(rows[0]) : undefined;
}

/** Serialises changes to a tenant's owners until the transaction ends. */
export async function lockTenant(db: Queryable, id: number): Promise<void> {
  await db.query(`SELECT id FROM tenants WHERE id = $1 FOR UPDATE`, [id]);
}
