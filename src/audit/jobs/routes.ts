import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import { cancelAuditRoute } from './routes/cancel.ts';
import { createAuditRoute, type CreateDeps } from './routes/create.ts';
import { getAuditRoute } from './routes/get.ts';
import { listAuditsRoute } from './routes/list.ts';

/** The job interface of Document 3 under /api/v1/audits: one file per action under routes/. */
export function registerJobRoutes(app: App, deps: CreateDeps): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    createAuditRoute(api, deps);
    listAuditsRoute(api, deps);
    getAuditRoute(api, deps);
    cancelAuditRoute(api, deps);
  });
}
