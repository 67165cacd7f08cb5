import type { App } from '../../kit/app.ts';
import type { DashboardContext } from '../context.ts';
import { registerHistoryRoutes } from '../history/routes.ts';
import { registerSavedQueryReadRoutes } from './read-routes.ts';
import { registerQueryRunRoutes } from './run-routes.ts';
import { registerSavedQueryWriteRoutes } from './write-routes.ts';

/**
 * Ad-hoc SQL (`POST /query`, editors) and saved queries: editors save and change them, viewers list and run them with
 * parameter values only, which is how a viewer gets data without being able to write SQL. Each person's SQL editor
 * runs are kept in their own history (history/).
 */
export function registerQueryRoutes(app: App, ctx: DashboardContext): void {
  registerQueryRunRoutes(app, ctx);
  registerSavedQueryReadRoutes(app, ctx);
  registerSavedQueryWriteRoutes(app, ctx);
  registerHistoryRoutes(app, ctx);
}
