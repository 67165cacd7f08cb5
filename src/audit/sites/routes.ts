import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { QueueDeps } from '../jobs/queue.ts';
import { createSiteRoute } from './routes/create.ts';
import { deleteSiteRoute } from './routes/delete.ts';
import { getSiteRoute } from './routes/get.ts';
import { listSitesRoute } from './routes/list.ts';
import { runSiteRoute } from './routes/run.ts';
import { updateSiteRoute } from './routes/update.ts';

/** `/api/v1/sites`: the caller's sites (a URL and its audit settings), each run now or on its schedule. */
export function registerSiteRoutes(app: App, deps: QueueDeps): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    createSiteRoute(api, deps);
    listSitesRoute(api, deps);
    getSiteRoute(api, deps);
    updateSiteRoute(api, deps);
    deleteSiteRoute(api, deps);
    runSiteRoute(api, deps);
  });
}
