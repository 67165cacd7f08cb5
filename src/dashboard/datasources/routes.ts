import type { App } from '../../kit/app.ts';
import type { DashboardContext } from '../context.ts';
import { registerSourceReadRoutes } from './read-routes.ts';
import { registerSourceRunRoutes } from './run-routes.ts';
import { registerSourceWriteRoutes } from './write-routes.ts';

/**
 * Data sources of the caller's tenant. Viewers see them (never a URL); admins create, change, delete and test them;
 * editors browse their schema and run ad-hoc SQL. Another tenant's id is answered 404 on every route.
 */
export function registerDataSourceRoutes(app: App, ctx: DashboardContext): void {
  registerSourceReadRoutes(app, ctx);
  registerSourceWriteRoutes(app, ctx);
  registerSourceRunRoutes(app, ctx);
}
