import type { App } from '../../kit/app.ts';
import type { DashboardContext } from '../context.ts';
import { registerAccessRoutes } from './access-routes.ts';
import { registerFavouriteRoutes } from './favourite-routes.ts';
import { registerDashboardReadRoutes } from './read-routes.ts';
import { registerVersionRoutes } from './version-routes.ts';
import { registerWidgetRunRoute } from './widget-routes.ts';
import { registerParameterRoutes } from './parameter-routes.ts';
import { registerDashboardWriteRoutes } from './write-routes.ts';

/**
 * Dashboards of the caller's tenant: viewers read and run their widgets, editors write. Every write makes a new
 * version (kept in dashboard_versions) and changes the ETag; a write with a stale If-Match is refused 412. A
 * dashboard may be restricted to named people (access.ts): every route loads it through lookup.ts `dashboardFor`.
 */
export function registerDashboardRoutes(app: App, ctx: DashboardContext): void {
  registerDashboardReadRoutes(app, ctx);
  registerDashboardWriteRoutes(app, ctx);
  registerVersionRoutes(app, ctx);
  registerWidgetRunRoute(app, ctx);
  registerParameterRoutes(app, ctx);
  registerFavouriteRoutes(app, ctx);
  registerAccessRoutes(app, ctx);
}
