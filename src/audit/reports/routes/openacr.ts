import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { completedResult } from '../../jobs/owned.ts';
import { JobIdParams } from '../../jobs/schemas.ts';
import { OpenAcrQuery, openAcrResponse } from '../../openacr/query.ts';
import type { OpenAcrDefaults } from '../../openacr/report.ts';
import { reportErrors } from '../errors.ts';

/** `GET /api/v1/audits/{id}/openacr`: an OpenACR report, YAML or JSON. */
export function openAcrRoute(api: App, deps: { db: Database; openAcrDefaults: OpenAcrDefaults }): void {
  api.get(
    '/api/v1/audits/:id/openacr',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'getAuditOpenAcr',
        summary: 'An OpenACR conformance report (GSA format) of a completed audit, YAML (default) or JSON',
        tags: ['audits'],
        security: CALLER_SECURITY,
        params: JobIdParams,
        querystring: OpenAcrQuery,
        response: {
          200: {
            description: 'The OpenACR report',
            content: {
              'application/yaml': { schema: { type: 'string' } },
              'application/json': { schema: { type: 'object' } },
            },
          },
          ...reportErrors,
        },
      },
    },
    async (request, reply) => {
      const result = await completedResult(deps.db, request.auditOwner, request.params.id);
      const answer = openAcrResponse(result, request.query, deps.openAcrDefaults);
      return reply.type(answer.contentType).send(answer.body);
    },
  );
}
