import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { decodeCursor, pageOf, pageQuery } from '../../../kit/paging.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { BranchName } from '../../request/schema.ts';
import type { AuditJobStatus } from '../../result/types.ts';
import { JobStatus, JobSummary, jobErrors, jobSummary } from '../schemas.ts';
import { JOB_CURSOR, listJobs } from '../store.ts';

/** `GET /api/v1/audits`: the caller's jobs, newest first. */
export function listAuditsRoute(api: App, deps: { db: Database }): void {
  api.get(
    '/api/v1/audits',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'listAudits',
        summary: "The caller's audits, newest first, paged",
        description:
          'Finished jobs are deleted AUDIT_RETENTION_DAYS days (90 by default) after they finished, and are no longer listed.',
        tags: ['audits'],
        security: CALLER_SECURITY,
        querystring: Type.Object(
          {
            ...pageQuery(),
            status: Type.Optional(JobStatus),
            branch: Type.Optional(BranchName),
            url: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 2048,
                description: 'Only jobs of this URL (as the job shows it)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(JobSummary), ...jobErrors },
      },
    },
    async (request) => {
      const page = await listJobs(deps.db, request.auditOwner, {
        limit: request.query.limit,
        before: decodeCursor(request.query.cursor, JOB_CURSOR)?.[0] ?? null,
        status: (request.query.status as AuditJobStatus | undefined) ?? null,
        branch: request.query.branch ?? null,
        url: request.query.url === undefined ? null : asStored(request.query.url),
      });
      return { items: page.items.map(jobSummary), next: page.next };
    },
  );
}

/** A URL as jobs store it (parsed and serialised), so `?url=` finds the jobs of the URL as it was asked for. */
function asStored(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url;
  }
}
