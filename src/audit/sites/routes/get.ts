import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { ownSite } from '../owned.ts';
import { SiteOut, SiteParams, siteErrors } from '../schemas.ts';

/** `GET /api/v1/sites/{id}`: one site, with its latest run's progress: what a page polls while a run goes on. */
export function getSiteRoute(api: App, deps: { db: Database }): void {
  api.get(
    '/api/v1/sites/:id',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'getSite',
        summary: 'One site, with its latest run (and its pages done of those expected) and schedule',
        tags: ['sites'],
        security: CALLER_SECURITY,
        params: SiteParams,
        response: { 200: SiteOut, ...siteErrors },
      },
    },
    async (request) => ownSite(deps.db, request.auditOwner, request.params.id),
  );
}
