import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { SiteList, siteErrors } from '../schemas.ts';
import { listSites } from '../store.ts';

/** `GET /api/v1/sites`: every site of the caller (at most 200), by name, each with its latest run and schedule. */
export function listSitesRoute(api: App, deps: { db: Database }): void {
  api.get(
    '/api/v1/sites',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'listSites',
        summary: "The caller's sites by name, each with its latest run, last completed run and schedule",
        tags: ['sites'],
        security: CALLER_SECURITY,
        response: { 200: SiteList, ...siteErrors },
      },
    },
    async (request) => ({ items: await listSites(deps.db, request.auditOwner) }),
  );
}
