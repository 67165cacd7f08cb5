import { HttpError, codeForStatus, errorResponses } from '../../../kit/errors.ts';
import type { App } from '../../../kit/app.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { SiteBody, SiteOut, siteErrors } from '../schemas.ts';
import { checkedSite, type SiteCheckDeps } from '../settings.ts';
import { TooManySitesError, createSite } from '../store.ts';

/** `POST /api/v1/sites`: keeps a URL and its audit settings, checked as an audit request is. */
export function createSiteRoute(api: App, deps: SiteCheckDeps): void {
  api.post(
    '/api/v1/sites',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'createSite',
        summary: 'Keep a site: a URL and the settings its audits run with',
        description:
          'The URL and settings are checked as POST /api/v1/audits checks them (an internal address is refused unless AUDIT_ALLOW_HOSTS lets it through). At most 200 sites per credential (409 beyond).',
        tags: ['sites'],
        security: CALLER_SECURITY,
        body: SiteBody,
        response: { 201: { ...SiteOut, description: 'The site' }, ...siteErrors, ...errorResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const input = await checkedSite(deps, request.auditOwner, request.body);
      try {
        const site = await createSite(deps.db, request.auditOwner, input);
        reply.header('location', `/api/v1/sites/${site.id}`);
        return reply.code(201).send(site);
      } catch (err) {
        if (err instanceof TooManySitesError) throw new HttpError(409, codeForStatus(409), err.message);
        throw err;
      }
    },
  );
}
