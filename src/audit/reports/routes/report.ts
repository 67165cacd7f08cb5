import { Type } from 'typebox';
import type { App } from '../../../kit/app.ts';
import type { Database } from '../../../kit/db.ts';
import { CALLER, CALLER_SECURITY } from '../../auth/access.ts';
import { completedResult } from '../../jobs/owned.ts';
import { JobIdParams } from '../../jobs/schemas.ts';
import { renderHtmlReport } from '../../report/render.ts';
import { AuditResultSchema } from '../../result/schema.ts';
import { reportErrors } from '../errors.ts';

/** `GET /api/v1/audits/{id}/report`: the result as JSON, or a page to read. */
export function reportRoute(api: App, deps: { db: Database }): void {
  api.get(
    '/api/v1/audits/:id/report',
    {
      config: { access: CALLER },
      schema: {
        operationId: 'getAuditReport',
        summary:
          'The report of a completed audit: JSON (the result with every page and finding) or a self-contained HTML page',
        tags: ['audits'],
        security: CALLER_SECURITY,
        params: JobIdParams,
        querystring: Type.Object(
          {
            format: Type.Optional(
              Type.Union([Type.Literal('json'), Type.Literal('html')], { description: 'json (default) or html' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The report: the audit result as JSON, or an HTML page',
            content: {
              'application/json': { schema: AuditResultSchema },
              'text/html': { schema: { type: 'string' } },
            },
          },
          ...reportErrors,
        },
      },
    },
    async (request, reply) => {
      const result = await completedResult(deps.db, request.auditOwner, request.params.id);
      if (request.query.format === 'html') {
        return reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
          .send(renderHtmlReport(result));
      }
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(result));
    },
  );
}
