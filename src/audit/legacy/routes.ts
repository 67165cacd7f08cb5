import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import { HttpError, codeForStatus, errorResponses } from '../../kit/errors.ts';
import { CALLER } from '../auth/access.ts';
import { AuditFailedError } from '../engine/auditor.ts';
import type { AuditMetrics } from '../metrics.ts';
import { badRequest, parseAuditUrl, resolveConfig, type ConfigLimits } from '../request/resolve.ts';
import { LegacyAuditBody } from '../request/schema.ts';
import { AuditResultSchema } from '../result/schema.ts';
import type { AuditConfig, AuditResult } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../safety/address-policy.ts';

export interface LegacyRouteDeps {
  policy: AddressPolicy;
  limits: ConfigLimits;
  metrics: AuditMetrics;
  maxConcurrent: number;
  run: (url: string, config: AuditConfig, signal: AbortSignal) => Promise<AuditResult>;
}

/** The unversioned `POST /audit` of Document 3 runs an audit within the request (its `GET /health` comes from the kit, with the version). */
export function registerLegacyRoutes(app: App, deps: LegacyRouteDeps): void {
  let active = 0;

  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/audit',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'auditNow',
          summary: 'Audit a URL (optionally crawling from it) and answer with the result',
          tags: ['legacy'],
          security: [{ apiKey: [] }, { bearer: [] }],
          body: LegacyAuditBody,
          response: { 200: AuditResultSchema, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const url = parseAuditUrl(body.url);
        const config = resolveConfig(
          { level: body.level, version: body.version, crawl: body.crawl, llm: body.llm },
          deps.limits,
        );
        try {
          await deps.policy.resolve(url.hostname);
        } catch (err) {
          if (err instanceof RefusedDestinationError) {
            deps.metrics.syncAudits.inc({ outcome: 'refused' });
            throw badRequest(`url cannot be audited: ${err.message}`);
          }
          throw err;
        }
        if (active >= deps.maxConcurrent) {
          deps.metrics.syncAudits.inc({ outcome: 'busy' });
          throw new HttpError(
            429,
            codeForStatus(429),
            `${deps.maxConcurrent} audits are already running here; retry shortly or queue one with POST /api/v1/audits`,
            { headers: { 'retry-after': '10' } },
          );
        }
        active++;
        // A client that hangs up stops its audit, so an abandoned request does not hold a browser.
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableEnded) controller.abort();
        };
        request.raw.socket?.once('close', onClose);
        // Gone already while the request was checked: nothing to run for.
        if (request.raw.socket?.destroyed) controller.abort();
        try {
          const result = await deps.run(url.href, config, controller.signal);
          deps.metrics.syncAudits.inc({ outcome: 'completed' });
          return result;
        } catch (err) {
          if (controller.signal.aborted) {
            // The client hung up: no one is left to answer, and its leaving is not a failure of the audit
            // (nor an error to log), so the request ends here without a reply.
            deps.metrics.syncAudits.inc({ outcome: 'abandoned' });
            request.log.info({ url: url.href }, 'audit abandoned: the client closed the connection');
            reply.hijack();
            reply.raw.destroy();
            return reply;
          }
          deps.metrics.syncAudits.inc({ outcome: 'failed' });
          if (err instanceof AuditFailedError) {
            if (!err.retryable && /^refused/.test(err.message))
              throw badRequest(`url cannot be audited: ${err.message}`);
            throw new HttpError(500, codeForStatus(500), `the audit failed: ${err.message}`);
          }
          throw err;
        } finally {
          active--;
          request.raw.socket?.off('close', onClose);
        }
      },
    );
  });
}
