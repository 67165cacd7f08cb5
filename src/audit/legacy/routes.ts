import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import type { AuditGuard } from '../auth/guard.ts';
import { AuditFailedError } from '../engine/auditor.ts';
import { ErrorBody } from '../errors.ts';
import type { AuditMetrics } from '../metrics.ts';
import { badRequest, parseAuditUrl, resolveConfig, type ConfigLimits } from '../request/resolve.ts';
import { LegacyAuditBody } from '../request/schema.ts';
import { AuditResultSchema } from '../result/schema.ts';
import type { AuditConfig, AuditResult } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../safety/address-policy.ts';

export interface LegacyRouteDeps {
  guard: AuditGuard;
  policy: AddressPolicy;
  limits: ConfigLimits;
  metrics: AuditMetrics;
  maxConcurrent: number;
  version: string;
  run: (url: string, config: AuditConfig, signal: AbortSignal) => Promise<AuditResult>;
}

/** The unversioned interface of Document 3: `POST /audit` runs an audit within the request; `GET /health` answers `{status, version}`. */
export function registerLegacyRoutes(app: App, deps: LegacyRouteDeps): void {
  let active = 0;

  app.get('/health', {
    schema: {
      operationId: 'legacyHealth',
      summary: 'The process is alive, and its version',
      tags: ['health'],
      response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
    },
  }, async () => ({ status: 'ok' as const, version: deps.version }));

  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.addHook('preHandler', deps.guard);
    api.post('/audit', {
      schema: {
        operationId: 'auditNow',
        summary: 'Audit a URL (optionally crawling from it) and answer with the result',
        tags: ['legacy'],
        security: [{ apiKey: [] }, { bearer: [] }],
        body: LegacyAuditBody,
        response: { 200: AuditResultSchema, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody, 500: ErrorBody, 503: ErrorBody },
      },
    }, async (request, reply) => {
      const body = request.body;
      const url = parseAuditUrl(body.url);
      const config = resolveConfig({ level: body.level, version: body.version, crawl: body.crawl, llm: body.llm }, deps.limits);
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
        throw new HttpError(429, codeForStatus(429), `${deps.maxConcurrent} audits are already running here; retry shortly or queue one with POST /api/v1/audits`, { headers: { 'retry-after': '10' } });
      }
      active++;
      // A client that hangs up stops its audit, so an abandoned request does not hold a browser.
      const controller = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) controller.abort();
      };
      request.raw.socket?.once('close', onClose);
      try {
        const result = await deps.run(url.href, config, controller.signal);
        deps.metrics.syncAudits.inc({ outcome: 'completed' });
        return result;
      } catch (err) {
        deps.metrics.syncAudits.inc({ outcome: 'failed' });
        if (err instanceof AuditFailedError) {
          if (!err.retryable && /^refused/.test(err.message)) throw badRequest(`url cannot be audited: ${err.message}`);
          throw new HttpError(500, codeForStatus(500), `the audit failed: ${err.message}`);
        }
        throw err;
      } finally {
        active--;
        request.raw.socket?.off('close', onClose);
      }
    });
  });
}
