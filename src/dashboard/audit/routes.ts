import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { currentUser, requireRole } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { IdPosition, ListQuery, Timestamp, bearer, errors } from '../schemas.ts';

export const AuditRecord = Type.Object({
  id: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
});

/** The tenant's audit log, newest first, for its admins and owners. */
export function registerAuditRoutes(app: App, ctx: DashboardContext): void {
  app.get('/api/v1/audit', {
    onRequest: requireRole('admin'),
    schema: {
      operationId: 'listAudit', tags: ['audit'], security: bearer,
      summary: 'Who changed what (dashboards, data sources, users, tenants) and who ran which query, newest first; filters by action, target type, user and time (`since`, `until`)',
      querystring: Type.Object({
        ...ListQuery.properties,
        action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_.]+$' })),
        targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+$' })),
        userId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
        since: Type.Optional(Type.String({ format: 'date-time', description: 'records at or after this time (ISO 8601 with a zone)' })),
        until: Type.Optional(Type.String({ format: 'date-time', description: 'records before this time (ISO 8601 with a zone)' })),
      }),
      response: { 200: pageOf(AuditRecord), ...errors(400, 401, 403, 429) },
    },
  }, async (request) => {
    const { tenantId } = currentUser(request);
    const { limit, cursor, action, targetType, userId, since, until } = request.query;
    if (since && until && Date.parse(since) >= Date.parse(until)) throw validation('since must be earlier than until');
    const { rows } = await ctx.db.query<{ id: number; user_id: number | null; action: string; target_type: string; target_id: string | null; details: Record<string, unknown>; created_at: Date }>(
      `SELECT id, user_id, action, target_type, target_id, details, created_at FROM audit_log
        WHERE tenant_id = $1 AND ($2::bigint IS NULL OR id < $2) AND ($3::text IS NULL OR action = $3)
          AND ($4::text IS NULL OR target_type = $4) AND ($5::bigint IS NULL OR user_id = $5)
          AND ($7::timestamptz IS NULL OR created_at >= $7) AND ($8::timestamptz IS NULL OR created_at < $8)
        ORDER BY id DESC LIMIT $6`,
      [tenantId, decodeCursor(cursor, IdPosition)?.[0] ?? null, action ?? null, targetType ?? null, userId ?? null, limit + 1, since ?? null, until ?? null],
    );
    return toPage(rows, limit, (r) => [r.id], (r) => ({
      id: r.id, userId: r.user_id, action: r.action, targetType: r.target_type, targetId: r.target_id, details: r.details, createdAt: r.created_at.toISOString(),
    }));
  });
}
