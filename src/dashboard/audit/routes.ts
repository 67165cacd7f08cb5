import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
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
  userName: Type.Union([Type.String(), Type.Null()], {
    description: "the acting user's name now; null for the operator's command line and the service itself",
  }),
  targetName: Type.Union([Type.String(), Type.Null()], {
    description:
      "the target's name now (a dashboard's title, a source's, user's or tenant's name); for a target since deleted, the title or slug its record kept; null when neither is known",
  }),
  targetExists: Type.Boolean({ description: 'whether the target is still there (false once a dashboard is deleted)' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
});

interface AuditRow {
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

/**
 * The target's name as it is now, read when the log is, so a renamed dashboard shows its new title. Only targets of
 * the caller's tenant are named, except the tenant record an owner created from here (its own tenant id).
 */
const CURRENT_NAME = `CASE WHEN a.target_id ~ '^[0-9]{1,18}$' THEN CASE a.target_type
    WHEN 'dashboard' THEN (SELECT d.title FROM dashboards d WHERE d.id = a.target_id::bigint AND d.tenant_id = a.tenant_id)
    WHEN 'datasource' THEN (SELECT ds.name FROM data_sources ds WHERE ds.id = a.target_id::bigint AND ds.tenant_id = a.tenant_id)
    WHEN 'user' THEN (SELECT u.name FROM users u WHERE u.id = a.target_id::bigint AND u.tenant_id = a.tenant_id)
    WHEN 'tenant' THEN (SELECT t.name FROM tenants t WHERE t.id = a.target_id::bigint)
  END END`;

/** What a record kept of a target since deleted: a dashboard's title, else the slug. */
function recordedName(details: Record<string, unknown>): string | null {
  for (const key of ['title', 'name', 'slug']) {
    const v = details[key];
    if (typeof v === 'string' && v) return v;
  }
  return null;
}

/** The tenant's audit log, newest first, for its admins and owners. */
export function registerAuditRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/audit',
    {
      config: { access: signedIn('admin') },
      schema: {
        operationId: 'listAudit',
        tags: ['audit'],
        security: bearer,
        summary:
          'Who changed what (dashboards, data sources, users, tenants) and who ran which query, newest first; filters by action, target type, user and time (`since`, `until`)',
        querystring: Type.Object({
          ...ListQuery.properties,
          action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_.]+$' })),
          targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+$' })),
          userId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
          since: Type.Optional(
            Type.String({ format: 'date-time', description: 'records at or after this time (ISO 8601 with a zone)' }),
          ),
          until: Type.Optional(
            Type.String({ format: 'date-time', description: 'records before this time (ISO 8601 with a zone)' }),
          ),
        }),
        response: { 200: pageOf(AuditRecord), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { limit, cursor, action, targetType, userId, since, until } = request.query;
      if (since && until && Date.parse(since) >= Date.parse(until))
        throw validation('since must be earlier than until');
      const { rows } = await ctx.db.query<AuditRow>(
        `SELECT a.id, a.user_id, a.action, a.target_type, a.target_id, a.details, a.created_at, actor.name AS user_name, ${CURRENT_NAME} AS current_name
         FROM audit_log a LEFT JOIN users actor ON actor.id = a.user_id AND actor.tenant_id = a.tenant_id
        WHERE a.tenant_id = $1 AND ($2::bigint IS NULL OR a.id < $2) AND ($3::text IS NULL OR a.action = $3)
          AND ($4::text IS NULL OR a.target_type = $4) AND ($5::bigint IS NULL OR a.user_id = $5)
          AND ($7::timestamptz IS NULL OR a.created_at >= $7) AND ($8::timestamptz IS NULL OR a.created_at < $8)
        ORDER BY a.id DESC LIMIT $6`,
        [
          tenantId,
          decodeCursor(cursor, IdPosition)?.[0] ?? null,
          action ?? null,
          targetType ?? null,
          userId ?? null,
          limit + 1,
          since ?? null,
          until ?? null,
        ],
      );
      return toPage(
        rows,
        limit,
        (r) => [r.id],
        (r) => ({
          id: r.id,
          userId: r.user_id,
          action: r.action,
          targetType: r.target_type,
          targetId: r.target_id,
          userName: r.user_name,
          targetName: r.current_name ?? recordedName(r.details),
          targetExists: r.current_name !== null,
          details: r.details,
          createdAt: r.created_at.toISOString(),
        }),
      );
    },
  );
}
