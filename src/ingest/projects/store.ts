import type { Queryable } from '../../kit/db.ts';
import { randomToken } from '../../kit/crypto.ts';
import { positioned, type PageRequest, type Positioned } from '../../kit/paging.ts';
import { isoUtc } from '../../kit/sql.ts';
import { isBlank } from '../../kit/names.ts';

export interface Project {
  id: string;
  name: string;
  created_at: string;
}

/** A project id travels in every event's `project_id`, so it is short and plain. */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export class ProjectExistsError extends Error {}
/** A value the caller gave that cannot be stored as it is; the message names the field. */
export class ProjectInputError extends Error {}

const PROJECT_COLUMNS = `id, name, ${isoUtc('created_at')} AS created_at`;

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
      ORDER BY projects.created_at, projects.id LIMIT $3`,
    [page?.after?.[0] ?? null, page?.after?.[1] ?? null, page?.limit ?? null],
  );
  return positioned(rows);
}

export async function getProject(db: Queryable, id: string): Promise<Project | undefined> {
  return (await db.query<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id])).rows[0];
}

/** Gives a project a new name (its id, in every event, stays); undefined when there is no such project. */
export async function renameProject(db: Queryable, id: string, name: string): Promise<Project | undefined> {
  if (isBlank(name)) throw new ProjectInputError('name: must not be blank');
  const { rows } = await db.query<Project>(`UPDATE projects SET name = $2 WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`, [
    id,
    name,
  ]);
  return rows[0];
}
