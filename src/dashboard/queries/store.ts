import type { Queryable } from '../../kit/db.ts';

export interface SavedQueryRow {
  id: number;
  tenant_id: number;
  data_source_id: number;
  name: string;
  description: string | null;
  query: string;
  created_by: number | null;
  created_by_name: string | null;
  updated_by: number | null;
  updated_by_name: string | null;
  created_at: Date;
  updated_at: Date;
}

const OWN = `id::int AS id, tenant_id::int AS tenant_id, data_source_id::int AS data_source_id, name, description, query, created_by::int AS created_by, updated_by::int AS updated_by, created_at, updated_at`;
/** The row with the names of who made it and who last changed it (a deleted person's is null). */
const COLUMNS = `${OWN}, (SELECT u.name FROM users u WHERE u.id = q.created_by) AS created_by_name, (SELECT u.name FROM users u WHERE u.id = q.updated_by) AS updated_by_name`;
/** The columns of a row just written, from the statement's RETURNING (no alias there). */
const RETURNED = COLUMNS.replaceAll('q.', 'saved_queries.');

export async function getSavedQuery(db: Queryable, tenantId: number, id: number): Promise<SavedQueryRow | undefined> {
  const r = await db.query<SavedQueryRow>(`SELECT ${COLUMNS} FROM saved_queries q WHERE tenant_id = $1 AND id = $2`, [
    tenantId,
    id,
  ]);
  return r.rows[0];
}

/**
 * A page in id order: `after` is the last id of the previous page. `search` matches the name, description or text
 * anywhere, case-insensitively (its `%` and `_` taken literally).
 */
export async function listSavedQueries(
  db: Queryable,
  tenantId: number,
  page: { limit: number; after: number; dataSourceId?: number | undefined; search?: string | undefined },
): Promise<SavedQueryRow[]> {
  const pattern = page.search ? `%${page.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const r = await db.query<SavedQueryRow>(
    `SELECT ${COLUMNS} FROM saved_queries q WHERE tenant_id = $1 AND id > $2 AND ($3::bigint IS NULL OR data_source_id = $3)
       AND ($5::text IS NULL OR name ILIKE $5 OR description ILIKE $5 OR query ILIKE $5) ORDER BY id LIMIT $4`,
    [tenantId, page.after, page.dataSourceId ?? null, page.limit, pattern],
  );
  return r.rows;
}

export async function insertSavedQuery(
  db: Queryable,
  v: {
    tenantId: number;
    dataSourceId: number;
    name: string;
    description: string | null;
    query: string;
    createdBy: number;
  },
): Promise<SavedQueryRow> {
  const r = await db.query<SavedQueryRow>(
    `INSERT INTO saved_queries (tenant_id, data_source_id, name, description, query, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${RETURNED}`,
    [v.tenantId, v.dataSourceId, v.name, v.description, v.query, v.createdBy],
  );
  return r.rows[0]!;
}

export async function updateSavedQuery(
  db: Queryable,
  id: number,
  v: { dataSourceId: number; name: string; description: string | null; query: string; updatedBy: number },
): Promise<SavedQueryRow> {
  const r = await db.query<SavedQueryRow>(
    `UPDATE saved_queries SET data_source_id = $2, name = $3, description = $4, query = $5, updated_by = $6, updated_at = now() WHERE id = $1 RETURNING ${RETURNED}`,
    [id, v.dataSourceId, v.name, v.description, v.query, v.updatedBy],
  );
  return r.rows[0]!;
}

export async function deleteSavedQuery(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM saved_queries WHERE id = $1', [id]);
}
