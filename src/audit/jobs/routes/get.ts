import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { ownJob } from '../owned.ts';
import { JobDetail, JobIdParams, jobDetail, jobErrors } from '../schemas.ts';

/** `GET /api/v1/audits/{id}`: one of the caller's jobs, with its result once completed. */
export function getAuditRoute(api: App, deps: { db: Database }): void {
  api.get(
    '/api/v1/audits/:id',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'getAudit',
        summary: 'One audit, with its result once completed',
        description:
          'A finished job (completed, failed, cancelled) is deleted with its result AUDIT_RETENTION_DAYS days (90 by default) after it finished; it is then 404.',
        tags: ['audits'],
        security: CALLER_SECURITY,
        params: JobIdParams,
        response: { 200: JobDetail, ...jobErrors },
      },
    },
    async (request) => jobDetail(await ownJob(deps.db, request.auditOwner, request.params.id)),
  );
}
