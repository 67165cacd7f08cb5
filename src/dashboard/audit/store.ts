import type { Queryable } from '../../kit/db.ts';

export interface AuditRow {
  id: number;
  user_id: number | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: Date;
  user_name: string | null;
  current_name: string | null;
}

export interface AuditFilter {
  /** The last id of the previous page: records before it. */
  before?: number | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  userId?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit: number;
}

/**
 * The target's name as it is now, read when the log is, so a renamed dashboard shows its new title. Only targets of
 * the record's tenant are named, except the tenant record an owner created from here (its own tenant id).
 */
const CURRENT_NAME = `CASE WHEN a.target_id ~ '^[0-9]{1,18}$' THEN CASE a.target_type
    WHEN 'dashboard' THEN (SELECT d.title FROM dashboards d WHERE d.id = a.target_id::bigint AND d.tenant_id = a.tenant_id)
    WHEN 'datasource' THEN (SELECT ds.name FROM data_sources ds WHERE ds.id = a.target_id::bigint AND ds.tenant_id = a.tenant_id)
    WHEN 'user' THEN (SELECT u.name FROM users u WHERE u.id = a.target_id::bigint AND u.tenant_id = a.tenant_id)
    WHEN 'tenant' THEN (SELECT t.name FROM tenants t WHERE t.id = a.target_id::bigint)
  END END`;

/** A page of the tenant's log, newest first, with the acting user's and the target's names as they are now. */
export async function listAuditRecords(db: Queryable, tenantId: number, f: AuditFilter): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT a.id, a.user_id, a.action, a.target_type, a.target_id, a.details, a.created_at, actor.name AS user_name, ${CURRENT_NAME} AS current_name
       FROM audit_log a LEFT JOIN users actor ON actor.id = a.user_id AND actor.tenant_id = a.tenant_id
      WHERE a.tenant_id = $1 AND ($2::bigint IS NULL OR a.id < $2) AND ($3::text IS NULL OR a.action = $3)
        AND ($4::text IS NULL OR a.target_type = $4) AND ($5::bigint IS NULL OR a.user_id = $5)
        AND ($7::timestamptz IS NULL OR a.created_at >= $7) AND ($8::timestamptz IS NULL OR a.created_at < $8)
      ORDER BY a.id DESC LIMIT $6`,
    [
      tenantId,
      f.before ?? null,
      f.action ?? null,
      f.targetType ?? null,
      f.userId ?? null,
      f.limit,
      f.since ?? null,
      f.until ?? null,
    ],
  );
  return rows;
}
