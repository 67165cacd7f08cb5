import type { Queryable } from '../../kit/db.ts';

/** How many runs a person's history keeps: older ones go as new ones come (Superset's SQL Lab keeps a like list). */
export const HISTORY_KEPT = 100;

export interface HistoryRow {
  id: number;
  data_source_id: number;
  query: string;
  params: Record<string, unknown>;
  row_count: number | null;
  execution_ms: number | null;
  error: string | null;
  ran_at: Date;
}

export interface HistoryEntry {
  tenantId: number;
  userId: number;
  dataSourceId: number;
  query: string;
  params: Record<string, unknown>;
  rowCount: number | null;
  executionMs: number | null;
  error: string | null;
}

/** Adds a run and drops the person's runs beyond the newest HISTORY_KEPT, in one statement. */
export async function addHistory(db: Queryable, e: HistoryEntry): Promise<void> {
  await db.query(
    `WITH added AS (
       INSERT INTO query_history (tenant_id, user_id, data_source_id, query, params, row_count, execution_ms, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
     )
     DELETE FROM query_history WHERE user_id = $2 AND id IN (
       SELECT id FROM query_history WHERE user_id = $2 ORDER BY id DESC OFFSET $9
     )`,
    [
      e.tenantId,
      e.userId,
      e.dataSourceId,
      e.query,
      JSON.stringify(e.params),
      e.rowCount,
      e.executionMs,
      e.error,
      HISTORY_KEPT - 1,
    ],
  );
}

/** The person's runs, newest first. */
export async function listHistory(db: Queryable, userId: number, limit: number): Promise<HistoryRow[]> {
  const r = await db.query<HistoryRow>(
    `SELECT id::int AS id, data_source_id::int AS data_source_id, query, params, row_count, execution_ms, error, ran_at
       FROM query_history WHERE user_id = $1 ORDER BY id DESC LIMIT $2`,
    [userId, limit],
  );
  return r.rows;
}

export async function clearHistory(db: Queryable, userId: number): Promise<number> {
  return (await db.query('DELETE FROM query_history WHERE user_id = $1', [userId])).rowCount ?? 0;
}
