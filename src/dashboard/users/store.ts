import type { Queryable } from '../../kit/db.ts';
import type { Role } from '../auth/roles.ts';

/** Document 1's User. */
export interface User {
  id: number;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  lastLoginAt: string | null;
  createdAt: string;
}

export interface UserRow {
  id: number;
  tenant_id: number;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  last_login_at: Date | null;
  created_at: Date;
}

export const USER_COLUMNS = 'id, tenant_id, email, name, role, active, last_login_at, created_at';

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    active: r.active,
    lastLoginAt: r.last_login_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
  };
}

export class EmailTaken extends Error {}

export async function createUser(
  db: Queryable,
  input: { tenantId: number; email: string; name: string; role: Role },
): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (tenant_id, email, name, role) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, lower(email)) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [input.tenantId, input.email, input.name, input.role],
  );
  if (!rows[0]) throw new EmailTaken(`a user with email ${input.email} already exists in this tenant`);
  return rows[0];
}

/** A user of the tenant, or undefined: another tenant's user is never found (so it answers 404). */
export async function getUser(db: Queryable, tenantId: number, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND id = $2`, [
    tenantId,
    id,
  ]);
  return rows[0];
}

export async function findUserByEmail(db: Queryable, tenantId: number, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND lower(email) = lower($2)`,
    [tenantId, email],
  );
  return rows[0];
}

export async function listUsers(
  db: Queryable,
  tenantId: number,
  options: { after?: number | undefined; limit: number },
): Promise<UserRow[]> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [tenantId, options.after ?? 0, options.limit],
  );
  return rows;
}

export async function setRole(db: Queryable, tenantId: number, id: number, role: Role): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET role = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING ${USER_COLUMNS}`,
    [tenantId, id, role],
  );
  return rows[0];
}

export async function setName(db: Queryable, tenantId: number, id: number, name: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET name = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING ${USER_COLUMNS}`,
    [tenantId, id, name],
  );
  return rows[0];
}

/** Deactivates or reactivates; deactivation also revokes every session, so refresh tokens end as well. */
export async function setActive(
  db: Queryable,
  tenantId: number,
  id: number,
  active: boolean,
): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET active = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING ${USER_COLUMNS}`,
    [tenantId, id, active],
  );
  if (rows[0] && !active) {
    await db.query(
      `UPDATE sessions SET revoked_at = now(), revoked_why = 'user deactivated' WHERE user_id = $1 AND revoked_at IS NULL`,
      [id],
    );
  }
  return rows[0];
}

/** Active owners of a tenant other than `exceptId`: a tenant must keep at least one. */
export async function otherActiveOwners(db: Queryable, tenantId: number, exceptId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND id <> $2 AND role = 'owner' AND active`,
    [tenantId, exceptId],
  );
  return rows[0]!.n;
}

/** Identity made this user's platform account when they were added here (only then may this tenant send links). */
export async function markPlatformAccountMade(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE users SET made_platform_account = true WHERE id = $1', [id]);
}

export async function madePlatformAccount(db: Queryable, id: number): Promise<boolean> {
  const { rows } = await db.query<{ made: boolean }>('SELECT made_platform_account AS made FROM users WHERE id = $1', [
    id,
  ]);
  return rows[0]?.made === true;
}

/** Locks a user of the tenant for a change; false when the tenant has no such user. */
export async function lockUser(db: Queryable, tenantId: number, id: number): Promise<boolean> {
  const { rows } = await db.query(`SELECT id FROM users WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
  return rows.length > 0;
}
