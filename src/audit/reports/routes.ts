import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus, errorResponses } from '../../kit/errors.ts';
import { CALLER } from '../auth/access.ts';
import { getJob } from '../jobs/store.ts';
import { JobIdParams } from '../jobs/routes.ts';
import { OpenAcrQuery, openAcrResponse } from '../openacr/query.ts';
import type { OpenAcrDefaults } from '../openacr/report.ts';
import { renderHtmlReport } from '../report/render.ts';
import { AuditResultSchema } from '../result/schema.ts';
import type { AuditResult } from '../result/types.ts';

const errors = errorResponses(400, 401, 403, 404, 409, 503);
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

/** The completed result of one of the caller's jobs, or 404/409 naming why there is none. */
export async function completedResult(db: Database, owner: string, id: string): Promise<AuditResult> {
  const job = await getJob(db, owner, id);
  if (!job) throw new HttpError(404, codeForStatus(404), `no audit ${id}`);
  if (job.status !== 'completed' || !job.result) {
    throw new HttpError(
      409,
      codeForStatus(409),
      `the audit is ${job.status}; its report exists once it has completed${job.error ? ` (${job.error})` : ''}`,
    );
  }
  return job.result;
}

/** `GET /api/v1/audits/{id}/report` (JSON or a page to read) and `GET /api/v1/audits/{id}/openacr` (YAML or JSON). */
export function registerReportRoutes(app: App, deps: { db: Database; openAcrDefaults: OpenAcrDefaults }): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.get(
      '/api/v1/audits/:id/report',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'getAuditReport',
          summary:
            'The report of a completed audit: JSON (the result with every page and finding) or a self-contained HTML page',
          tags: ['audits'],
          security,
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
            ...errors,
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

    api.get(
      '/api/v1/audits/:id/openacr',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'getAuditOpenAcr',
          summary: 'An OpenACR conformance report (GSA format) of a completed audit, YAML (default) or JSON',
          tags: ['audits'],
          security,
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
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const result = await completedResult(deps.db, request.auditOwner, request.params.id);
        const answer = openAcrResponse(result, request.query, deps.openAcrDefaults);
        return reply.type(answer.contentType).send(answer.body);
      },
    );
  });
}
