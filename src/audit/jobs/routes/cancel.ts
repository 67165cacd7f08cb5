import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { cancelOwnJob } from '../owned.ts';
import { JobIdParams, JobSummary, jobErrors, jobSummary } from '../schemas.ts';

import type { JobWorker } from '../worker.ts';

/** `DELETE /api/v1/audits/{id}`: cancels (Document 3's meaning); it never deletes. */
export function cancelAuditRoute(api: App, deps: { db: Database; worker: JobWorker }): void {
  api.delete(
    '/api/v1/audits/:id',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'cancelAudit',
        summary: 'Cancel a pending audit or stop a running one',
        description:
          'Cancels; it never deletes. A job already completed or failed is 409. Finished jobs are deleted by the retention period (AUDIT_RETENTION_DAYS), or by an operator with `platform audit jobs delete`.',
        tags: ['audits'],
        security: CALLER_SECURITY,
        params: JobIdParams,
        response: { 200: JobSummary, ...jobErrors },
      },
    },
    async (request) => {
      const job = await cancelOwnJob(deps.db, request.auditOwner, request.params.id);
      deps.worker.cancelLocal(request.params.id);
      return jobSummary(job);
    },
  );
}
