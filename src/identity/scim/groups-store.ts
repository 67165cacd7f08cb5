import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { scimError } from './errors.ts';
import type { SqlFilter } from './filter.ts';
import type { GroupRecord, GroupValues } from './group.ts';

/**
 * The groups a SCIM connection provisioned (scim_groups, migration 027) with their organizations. Aliases: o
 * organizations, g scim_groups (filter.ts's GROUP_FILTERS name them). Members are the active memberships of the
 * connection's people: people made elsewhere whom an admin added to the organization are not the directory's to see.
 */
const SELECT = `SELECT o.id, o.name, g.external_id, ${isoUtc('g.created_at')} AS created,
    ${isoUtc('greatest(o.updated_at, g.updated_at)')} AS last_modified
  FROM scim_groups g JOIN organizations o ON o.id = g.organization_id`;

interface Row {
  id: string;
  name: string;
  external_id: string | null;
  created: string;
  last_modified: string;
}

/** The members of these groups who are the connection's people, with their display names. */
async function membersOf(db: Queryable, connectionId: string, ids: string[]) {
  const r = await db.query<{ organization_id: string; principal_id: string; display_name: string }>(
    `SELECT m.organization_id, m.principal_id, p.display_name
       FROM principal_memberships m
       JOIN scim_users su ON su.principal_id = m.principal_id AND su.connection_id = $1 AND su.deleted_at IS NULL
       JOIN principals p ON p.id = m.principal_id
      WHERE m.organization_id = ANY($2::uuid[]) AND m.active
      ORDER BY m.created_at, m.principal_id`,
    [connectionId, ids],
  );
  return r.rows;
}

async function records(db: Queryable, connectionId: string, rows: Row[]): Promise<GroupRecord[]> {
  const members = rows.length
    ? await membersOf(
        db,
        connectionId,
        rows.map((r) => r.id),
      )
    : [];
  return rows.map((r) => {
    const mine = members.filter((m) => m.organization_id === r.id);
    return {
      id: r.id,
      displayName: r.name,
      externalId: r.external_id,
      members: mine.map((m) => m.principal_id),
      names: new Map(mine.map((m) => [m.principal_id, m.display_name])),
      created: r.created,
      lastModified: r.last_modified,
    };
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findGroup(
  db: Queryable,
  connectionId: string,
  id: string,
  lock = false,
): Promise<GroupRecord | undefined> {
  if (!UUID.test(id)) return undefined;
  const r = await db.query<Row>(
    `${SELECT} WHERE g.connection_id = $1 AND g.organization_id = $2 AND g.deleted_at IS NULL${lock ? ' FOR UPDATE OF g' : ''}`,
    [connectionId, id],
  );
  return (await records(db, connectionId, r.rows))[0];
}

export async function listGroups(
  db: Queryable,
  connectionId: string,
  filter: SqlFilter | undefined,
  startIndex: number,
  count: number,
): Promise<{ total: number; groups: GroupRecord[] }> {
  const where = `g.connection_id = $1 AND g.deleted_at IS NULL${filter ? ` AND ${filter.sql}` : ''}`;
  const params = [connectionId, ...(filter?.params ?? [])];
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM scim_groups g JOIN organizations o ON o.id = g.organization_id WHERE ${where}`,
    params,
  );
  const rows =
    count === 0
      ? []
      : (
          await db.query<Row>(
            `${SELECT} WHERE ${where} ORDER BY g.created_at, g.organization_id LIMIT ${count} OFFSET ${startIndex - 1}`,
            params,
          )
        ).rows;
  return { total: total.rows[0]!.n, groups: await records(db, connectionId, rows) };
}

/** 400 unless every member is one of the connection's people (a directory provisions people before their groups). */
export async function checkMembers(tx: Queryable, connectionId: string, members: string[]): Promise<void> {
  if (!members.length) return;
  const r = await tx.query<{ principal_id: string }>(
    `SELECT principal_id FROM scim_users WHERE connection_id = $1 AND deleted_at IS NULL AND principal_id = ANY($2::uuid[])`,
    [connectionId, members],
  );
  const known = new Set(r.rows.map((x) => x.principal_id));
  const unknown = members.filter((m) => !known.has(m));
  if (unknown.length)
    throw scimError(400, 'invalidValue', `members: no User ${unknown.slice(0, 5).join(', ')} of this connection`);
}

/** An organization's slug from the group's name: its words, then six random characters (names need not be unique). */
function slugOf(name: string): string {
  const words = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return `${words || 'group'}-${randomBytes(4).toString('hex').slice(0, 6)}`;
}

export async function insertGroup(tx: Queryable, connectionId: string, g: GroupValues): Promise<string> {
  const r = await tx.query<{ id: string }>(
    "INSERT INTO organizations (name, slug, org_type) VALUES ($1, $2, 'team') RETURNING id",
    [g.displayName, slugOf(g.displayName)],
  );
  const id = r.rows[0]!.id;
  await tx.query('INSERT INTO scim_groups (organization_id, connection_id, external_id) VALUES ($1, $2, $3)', [
    id,
    connectionId,
    g.externalId,
  ]);
  return id;
}

/** The organization's name and the directory's id as `after` says; members are setMembers'. */
export async function writeGroup(tx: Queryable, id: string, after: GroupValues): Promise<void> {
  await tx.query('UPDATE organizations SET name = $2, updated_at = now() WHERE id = $1', [id, after.displayName]);
  await tx.query('UPDATE scim_groups SET external_id = $2, updated_at = now() WHERE organization_id = $1', [
    id,
    after.externalId,
  ]);
}

/**
 * Members added (a membership with the role `member`, or a removed one made active again with its role) and removed
 * (the membership deactivated and kept on record, as `DELETE /api/v1/organizations/:id/members/:principalId` does).
 */
export async function setMembers(tx: Queryable, id: string, added: string[], removed: string[]): Promise<void> {
  if (added.length)
    await tx.query(
      `INSERT INTO principal_memberships (organization_id, principal_id, role)
       SELECT $1, unnest($2::uuid[]), 'member'
       ON CONFLICT (principal_id, organization_id) DO UPDATE SET active = true, updated_at = now()`,
      [id, added],
    );
  if (removed.length)
    await tx.query(
      `UPDATE principal_memberships SET active = false, updated_at = now()
        WHERE organization_id = $1 AND principal_id = ANY($2::uuid[])`,
      [id, removed],
    );
}

/** RFC 7644 3.6 for a Group: the organization deactivated (never deleted) and hidden from the connection. */
export async function deleteGroup(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE organizations SET active = false, updated_at = now() WHERE id = $1', [id]);
  await tx.query('UPDATE scim_groups SET deleted_at = now(), updated_at = now() WHERE organization_id = $1', [id]);
}
