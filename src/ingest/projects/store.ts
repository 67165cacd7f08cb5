import type { Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { isoUtc } from '../../kit/sql.ts';
import { isBlank } from '../names.ts';

export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** A project id travels in every event's `project_id`, so it is short and plain. */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KEY_PREFIX = 'isk_';

export class ProjectExistsError extends Error {}
export class ProjectNotFoundError extends Error {}
/** A value the caller gave that cannot be stored as it is; the message names the field. */
export class ProjectInputError extends Error {}

const PROJECT_COLUMNS = `id, name, ${isoUtc('created_at')} AS created_at`;
const KEY_COLUMNS = `id, project_id, name, prefix, ${isoUtc('created_at')} AS created_at, ${isoUtc('revoked_at')} AS revoked_at`;

/** A page of a list in creation order: `after` is the `position` of the previous page's last row. */
export interface PageRequest {
  limit: number;
  after?: readonly [string, string] | undefined;
}
/** The exact creation time (text, full precision) and id of a row: where the next page starts. */
export type Positioned<T> = T & { position: [string, string] };

function positioned<T extends { id: string }>(rows: (T & { sort_at: string })[]): Positioned<T>[] {
  return rows.map(({ sort_at, ...row }) => ({ ...(row as unknown as T), position: [sort_at, row.id] }));
}

export async function createProject(db: Queryable, input: { name: string; id?: string | undefined }): Promise<Project> {
  if (isBlank(input.name)) throw new ProjectInputError('name: must not be blank');
  const id = input.id ?? `prj_${randomToken(9)}`;
  const { rows } = await db.query<Project>(
    `INSERT INTO projects (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING ${PROJECT_COLUMNS}`,
    [id, input.name],
  );
  if (!rows[0]) throw new ProjectExistsError(`project ${id} already exists`);
  return rows[0];
}

/** Projects in creation order; every one without `page`. */
export async function listProjects(db: Queryable, page?: PageRequest): Promise<Positioned<Project>[]> {
  const { rows } = await db.query<Project & { sort_at: string }>(
    `SELECT ${PROJECT_COLUMNS}, created_at::text AS sort_at FROM projects
      WHERE $1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::text)
      ORDER BY created_at, id LIMIT $3`,
    [page?.after?.[0] ?? null, page?.after?.[1] ?? null, page?.limit ?? null],
  );
  return positioned(rows);
}

export async function getProject(db: Queryable, id: string): Promise<Project | undefined> {
  return (await db.query<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id])).rows[0];
}

/** Creates a key and returns it in clear this once; only its SHA-256 is stored. A key without a name has none given. */
export async function createApiKey(
  db: Queryable,
  projectId: string,
  name?: string,
): Promise<{ key: string; record: ApiKeyRecord }> {
  if (name !== undefined && isBlank(name))
    throw new ProjectInputError('name: must not be blank (leave it out for a key without a name)');
  const key = KEY_PREFIX + randomToken(32);
  const { rows } = await db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, project_id, name, key_hash, prefix)
     SELECT $1, p.id, $3, $4, $5 FROM projects p WHERE p.id = $2
     RETURNING ${KEY_COLUMNS}`,
    [`key_${randomToken(9)}`, projectId, name ?? '', sha256Hex(key), key.slice(0, KEY_PREFIX.length + 8)],
  );
  if (!rows[0]) throw new ProjectNotFoundError(`no project ${projectId}`);
  return { key, record: rows[0] };
}

/** A project's keys in creation order; every one without `page`. */
export async function listApiKeys(
  db: Queryable,
  projectId: string,
  page?: PageRequest,
): Promise<Positioned<ApiKeyRecord>[]> {
  const { rows } = await db.query<ApiKeyRecord & { sort_at: string }>(
    `SELECT ${KEY_COLUMNS}, created_at::text AS sort_at FROM api_keys
      WHERE project_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::text))
      ORDER BY created_at, id LIMIT $4`,
    [projectId, page?.after?.[0] ?? null, page?.after?.[1] ?? null, page?.limit ?? null],
  );
  return positioned(rows);
}

/** Revokes a key (idempotently: revoking twice keeps the first time). Undefined when no such key exists. */
export async function revokeApiKey(
  db: Queryable,
  keyId: string,
  projectId?: string,
): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
     WHERE id = $1 AND ($2::text IS NULL OR project_id = $2)
     RETURNING ${KEY_COLUMNS}`,
    [keyId, projectId ?? null],
  );
  return rows[0];
}

/** The project of a live (not revoked) key, looked up by the key's hash. */
export async function projectOfKeyHash(db: Queryable, keyHash: string): Promise<string | undefined> {
  const { rows } = await db.query<{ project_id: string }>(
    'SELECT project_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  );
  return rows[0]?.project_id;
}
