import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import { errorResponses } from '../../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { CreateJobBody } from '../../request/schema.ts';
import { queueAudit, type QueueDeps } from '../queue.ts';
import { jobErrors } from '../schemas.ts';

export interface CreateDeps extends QueueDeps {
  /** AUDIT_PUBLIC_URL: the service's address as clients reach it (behind a proxy, with the prefix it strips). */
  publicUrl?: string | undefined;
}

/** `POST /api/v1/audits`: queues an audit, answering at once. */
export function createAuditRoute(api: App, deps: CreateDeps): void {
  api.post(
    '/api/v1/audits',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'createAudit',
        summary: 'Queue an audit; answers at once with its id and status pending',
        tags: ['audits'],
        security: CALLER_SECURITY,
        body: CreateJobBody,
        response: {
          202: Type.Object(
            { id: Type.String(), status: Type.Literal('pending') },
            {
              description: 'The job is queued',
              headers: {
                location: Type.String({
                  description: 'The job: /api/v1/audits/{id}, under AUDIT_PUBLIC_URL when it is set',
                }),
              },
            },
          ),
          ...jobErrors,
          // A JSON body also meets the kit's body checks: over 64 KB (413) or not sent as application/json (415).
          ...errorResponses(413, 415),
        },
      },
    },
    async (request, reply) => {
      const job = await queueAudit(deps, request.auditOwner, request.body);
      // Behind a proxy that strips a prefix (https://gw.example/audit/…), a bare path would lead the client to the
      // proxy's root; with AUDIT_PUBLIC_URL set the Location is absolute under it.
      reply.header('location', `${deps.publicUrl?.replace(/\/+$/, '') ?? ''}/api/v1/audits/${job.id}`);
      return reply.code(202).send({ id: job.id, status: 'pending' as const });
    },
  );
}
