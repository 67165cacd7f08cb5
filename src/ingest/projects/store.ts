import type { Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';

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

const PROJECT_COLUMNS = `id, name, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;
const KEY_COLUMNS = `id, project_id, name, prefix,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS revoked_at`;

export async function createProject(db: Queryable, input: { name: string; id?: string | undefined }): Promise<Project> {
  const id = input.id ?? `prj_${randomToken(9)}`;
  const { rows } = await db.query<Project>(
    `INSERT INTO projects (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING ${PROJECT_COLUMNS}`,
    [id, input.name],
  );
  if (!rows[0]) throw new ProjectExistsError(`project ${id} already exists`);
  return rows[0];
}

export async function listProjects(db: Queryable): Promise<Project[]> {
  return (await db.query<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY created_at, id`)).rows;
}

export async function getProject(db: Queryable, id: string): Promise<Project | undefined> {
  return (await db.query<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id])).rows[0];
}

/** Creates a key and returns it in clear this once; only its SHA-256 is stored. */
export async function createApiKey(db: Queryable, projectId: string, name: string): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = KEY_PREFIX + randomToken(32);
  const { rows } = await db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, project_id, name, key_hash, prefix)
     SELECT $1, p.id, $3, $4, $5 FROM projects p WHERE p.id = $2
     RETURNING ${KEY_COLUMNS}`,
    [`key_${randomToken(9)}`, projectId, name, sha256Hex(key), key.slice(0, KEY_PREFIX.length + 8)],
  );
  if (!rows[0]) throw new ProjectNotFoundError(`no project ${projectId}`);
  return { key, record: rows[0] };
}

export async function listApiKeys(db: Queryable, projectId: string): Promise<ApiKeyRecord[]> {
  return (await db.query<ApiKeyRecord>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`, [projectId])).rows;
}

/** Revokes a key (idempotently: revoking twice keeps the first time). Undefined when no such key exists. */
export async function revokeApiKey(db: Queryable, keyId: string, projectId?: string): Promise<ApiKeyRecord | undefined> {
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
  const { rows } = await db.query<{ project_id: string }>('SELECT project_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash]);
  return rows[0]?.project_id;
}
