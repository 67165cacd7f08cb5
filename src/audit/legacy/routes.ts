import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../auth/access.ts';
import { auditRequest } from '../request/audit-request.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import { LegacyAuditBody } from '../request/schema.ts';
import { AuditResultSchema } from '../result/schema.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { missingSecrets } from '../secrets/store.ts';
import type { Database } from '../../kit/db.ts';
import { syncAudits, type RunNowDeps } from './run-now.ts';

export interface LegacyRouteDeps extends RunNowDeps {
  db: Database;
  policy: AddressPolicy;
  limits: ConfigLimits;
}

/** The unversioned `POST /audit` of Document 3 runs an audit within the request (its `GET /health` comes from the kit, with the version). */
export function registerLegacyRoutes(app: App, deps: LegacyRouteDeps): void {
  const runNow = syncAudits(deps);
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
          security: CALLER_SECURITY,
          body: LegacyAuditBody,
          response: { 200: AuditResultSchema, ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { url: rawUrl, ...options } = request.body;
        const { url, config } = await auditRequest(rawUrl, options, {
          limits: deps.limits,
          policy: deps.policy,
          missingSecrets: (names) => missingSecrets(deps.db, request.auditOwner, names),
          onRefused: () => deps.metrics.syncAudits.inc({ outcome: 'refused' }),
        });
        return runNow(request, reply, url, config);
      },
    );
  });
}
