import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import type { QueueDeps } from '../../jobs/queue.ts';
import { runSiteNow } from '../run-now.ts';
import { SiteParams, siteErrors } from '../schemas.ts';

/** `POST /api/v1/sites/{id}/runs`: run now. */
export function runSiteRoute(api: App, deps: QueueDeps): void {
  api.post(
    '/api/v1/sites/:id/runs',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'runSite',
        summary: 'Run now: queue an audit of the site with its settings',
        description:
          'Answers at once, as POST /api/v1/audits does; the run is then the site’s latestRun, with its pages done. 409 while a run of the site is pending or running; 429 past the caller’s share of the queue.',
        tags: ['sites'],
        security: CALLER_SECURITY,
        params: SiteParams,
        response: {
          202: Type.Object(
            { id: Type.String(), status: Type.Literal('pending') },
            {
              description: 'The run is queued',
              headers: { location: Type.String({ description: 'The run: /api/v1/audits/{id}' }) },
            },
          ),
          ...siteErrors,
        },
      },
    },
    async (request, reply) => {
      const job = await runSiteNow(deps, request.auditOwner, request.params.id);
      reply.header('location', `/api/v1/audits/${job.id}`);
      return reply.code(202).send({ id: job.id, status: 'pending' as const });
    },
  );
}
