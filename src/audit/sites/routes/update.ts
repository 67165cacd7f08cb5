import { errorResponses } from '../../../kit/errors.ts';
import type { App } from '../../../kit/app.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { noSite, ownSite } from '../owned.ts';
import { SiteBody, SiteOut, SiteParams, siteErrors } from '../schemas.ts';
import { checkedSite, type SiteCheckDeps } from '../settings.ts';
import { updateSite } from '../store.ts';

/** `PUT /api/v1/sites/{id}`: replaces the site's name, URL and settings; runs already queued keep theirs. */
export function updateSiteRoute(api: App, deps: SiteCheckDeps): void {
  api.put(
    '/api/v1/sites/:id',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'updateSite',
        summary: "Replace a site's name, URL and settings",
        description: 'Checked as on creation. A run already queued or running keeps the settings it was queued with.',
        tags: ['sites'],
        security: CALLER_SECURITY,
        params: SiteParams,
        body: SiteBody,
        response: { 200: SiteOut, ...siteErrors, ...errorResponses(413, 415) },
      },
    },
    async (request) => {
      // A stranger's site is 404 before its body is judged, as for any other of its routes.
      await ownSite(deps.db, request.auditOwner, request.params.id);
      const input = await checkedSite(deps, request.auditOwner, request.body);
      const site = await updateSite(deps.db, request.auditOwner, request.params.id, input);
      if (!site) throw noSite(request.params.id);
      return site;
    },
  );
}
