import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { OpenAcrDefaults } from '../openacr/report.ts';
import { openAcrRoute } from './routes/openacr.ts';
import { reportRoute } from './routes/report.ts';

/** `GET /api/v1/audits/{id}/report` (JSON or a page to read) and `GET /api/v1/audits/{id}/openacr` (YAML or JSON). */
export function registerReportRoutes(app: App, deps: { db: Database; openAcrDefaults: OpenAcrDefaults }): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    reportRoute(api, deps);
    openAcrRoute(api, deps);
  });
}
