import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { AuditAction } from './actions.ts';

export interface AuditEntry {
  tenantId: number;
  /** Who acted; null for the operator's command line and the service itself. */
  userId: number | null;
  /** `<thing>.<verb>`, one of AUDIT_ACTIONS (actions.ts). */
  action: AuditAction;
  targetType: string;
  targetId?: string | number | null;
  /** What changed, never a secret: field names and new values, the statement run, the row count. */
  details?: Record<string, unknown>;
}

const INSERT = `INSERT INTO audit_log (tenant_id, user_id, action, target_type, target_id, details)`;

/**
 * The same INSERT as its own transaction whose commit does not wait for the WAL flush: `set_config(..., true)` lasts
 * until the end of the statement's implicit transaction, so it covers that commit and nothing after it. One
 * statement, one round trip; the row is visible at once. docs/decisions.md says what an operator loses.
 */
const INSERT_NO_FLUSH_WAIT = `WITH no_flush_wait AS (SELECT set_config('synchronous_commit', 'off', true))
  ${INSERT} SELECT $1, $2, $3, $4, $5, $6 FROM no_flush_wait`;

/**
 * Writes one audit record. Pass the transaction that makes the change, so the record stands or falls
 * with it; for a query run pass the database after the run, with `flushWait: false` (the record of a read, whose
 * commit need not wait for the disk: see docs/decisions.md). `flushWait: false` is for the database only, never a
 * transaction, whose own commit it would relax.
 */
export async function recordAudit(
  db: Queryable,
  entry: AuditEntry,
  options: { flushWait?: boolean } = {},
): Promise<void> {
  const relaxed = options.flushWait === false;
  await db.query(
    relaxed ? INSERT_NO_FLUSH_WAIT : `${INSERT} VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      entry.tenantId,
      entry.userId,
      entry.action,
      entry.targetType,
      entry.targetId == null ? null : String(entry.targetId),
      JSON.stringify(entry.details ?? {}),
    ],
    // Prepared (planned once per connection): written after every query run, and an INSERT's plan cannot go stale.
    relaxed ? 'dashboard_audit_no_flush_wait' : undefined,
  );
}

/** The tenant and user half of an audit entry, from the authenticated request. */
export function actor(request: FastifyRequest): { tenantId: number; userId: number | null } {
  const u = request.user;
  if (!u) throw new Error('actor() on a request without a user');
  return { tenantId: u.tenantId, userId: u.id };
}
