import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { noSite } from '../owned.ts';
import { SiteParams, siteErrors } from '../schemas.ts';
import { deleteSite } from '../store.ts';

/** `DELETE /api/v1/sites/{id}`: the site, its schedule and notices go; its runs stay among the caller's audits. */
export function deleteSiteRoute(api: App, deps: { db: Database }): void {
  api.delete(
    '/api/v1/sites/:id',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'deleteSite',
        summary: 'Delete a site with its schedule and notification settings; its runs stay as audits',
        tags: ['sites'],
        security: CALLER_SECURITY,
        params: SiteParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...siteErrors },
      },
    },
    async (request, reply) => {
      if (!(await deleteSite(deps.db, request.auditOwner, request.params.id))) throw noSite(request.params.id);
      return reply.code(204).send(null);
    },
  );
}
