import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import type { AuditGuard } from '../auth/guard.ts';
import { ErrorBody } from '../errors.ts';
import { getJob } from '../jobs/store.ts';
import { JobIdParams } from '../jobs/routes.ts';
import { AuditResultSchema } from '../result/schema.ts';
import type { AuditResult } from '../result/types.ts';
import { renderHtmlReport } from '../report/render.ts';
import { OpenAcrQuery, openAcrResponse } from '../openacr/query.ts';
import type { OpenAcrDefaults } from '../openacr/report.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

/** The completed result of one of the caller's jobs, or 404/409 naming why there is none. */
export async function completedResult(db: Database, owner: string, id: string): Promise<AuditResult> {
  const job = await getJob(db, owner, id);
  if (!job) throw new HttpError(404, codeForStatus(404), `no audit ${id}`);
  if (job.status !== 'completed' || !job.result) {
    throw new HttpError(409, codeForStatus(409), `the audit is ${job.status}; its report exists once it has completed${job.error ? ` (${job.error})` : ''}`);
  }
  return job.result;
}

/** `GET /api/v1/audits/{id}/report`: the result as JSON (the default) or as a page to read. */
/** The report page loads nothing and runs nothing; the header repeats its meta policy for readers that honour only headers. */
const HTML_REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function registerReportRoutes(app: App, deps: { db: Database; guard: AuditGuard; openAcr: OpenAcrDefaults }): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.addHook('preHandler', deps.guard);
    api.get('/api/v1/audits/:id/report', {
      schema: {
        operationId: 'getAuditReport',
        summary: 'The report of a completed audit: JSON (every page and finding) or HTML',
        tags: ['audits'],
        security,
        params: JobIdParams,
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('html')], { description: 'json (default) or html' })) }, { additionalProperties: false }),
        response: {
          200: {
            description: 'The result (JSON), or the report as one self-contained HTML page (format=html)',
            content: { 'application/json': { schema: AuditResultSchema }, 'text/html': { schema: Type.String() } },
          },
          ...errors,
        },
      },
    }, async (request, reply) => {
      const result = await completedResult(deps.db, request.auditOwner, request.params.id);
      if (request.query.format !== 'html') return result;
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', HTML_REPORT_CSP)
        .header('x-content-type-options', 'nosniff')
        .send(renderHtmlReport(result));
    });

    api.get('/api/v1/audits/:id/openacr', {
      schema: {
        operationId: 'getAuditOpenAcr',
        summary: 'An OpenACR conformance report (GSA\'s format) of a completed audit, YAML or JSON',
        tags: ['audits'],
        security,
        params: JobIdParams,
        querystring: OpenAcrQuery,
        response: {
          200: {
            description: 'The OpenACR report: YAML (default) or JSON (format=json)',
            content: { 'application/yaml': { schema: Type.String() }, 'application/json': { schema: Type.Object({}, { additionalProperties: true }) } },
          },
          ...errors,
        },
      },
    }, async (request, reply) => {
      const result = await completedResult(deps.db, request.auditOwner, request.params.id);
      const { contentType, body } = openAcrResponse(result, request.query, deps.openAcr);
      return reply.type(contentType).header('x-content-type-options', 'nosniff').send(body);
    });
  });
}
