import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { IdPosition, bearer } from '../schemas.ts';
import { AuditQuery, AuditRecord } from './schemas.ts';
import { listAuditRecords } from './store.ts';
import { auditRecord } from './view.ts';

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
        querystring: AuditQuery,
        response: { 200: pageOf(AuditRecord), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      if (filter.since && filter.until && Date.parse(filter.since) >= Date.parse(filter.until))
        throw validation('since must be earlier than until');
      const before = decodeCursor(cursor, IdPosition)?.[0];
      const rows = await listAuditRecords(ctx.db, currentUser(request).tenantId, {
        ...filter,
        before,
        limit: limit + 1,
      });
      return toPage(rows, limit, (r) => [r.id], auditRecord);
    },
  );
}
