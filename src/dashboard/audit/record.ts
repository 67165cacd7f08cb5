import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../kit/db.ts';

export interface AuditEntry {
  tenantId: number;
  /** Who acted; null for the operator's command line and the service itself. */
  userId: number | null;
  /** `<thing>.<verb>`: dashboard.create, datasource.update, query.run, user.role_change, ... */
  action: string;
  targetType: string;
  targetId?: string | number | null;
  /** What changed, never a secret: field names and new values, the statement run, the row count. */
  details?: Record<string, unknown>;
}

/**
 * Writes one audit record. Pass the transaction that makes the change, so the record stands or falls
 * with it; for a query run pass the database after the run.
 */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (tenant_id, user_id, action, target_type, target_id, details) VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      entry.tenantId,
      entry.userId,
      entry.action,
      entry.targetType,
      entry.targetId == null ? null : String(entry.targetId),
      JSON.stringify(entry.details ?? {}),
    ],
  );
}

/** The tenant and user half of an audit entry, from the authenticated request. */
export function actor(request: FastifyRequest): { tenantId: number; userId: number | null } {
  const u = request.user;
  if (!u) throw new Error('actor() on a request without a user');
  return { tenantId: u.tenantId, userId: u.id };
}
