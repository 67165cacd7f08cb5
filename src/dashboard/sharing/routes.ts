import type { App } from '../../kit/app.ts';
import type { DashboardContext } from '../context.ts';
import { registerShareLinkRoutes } from './link-routes.ts';
import { registerPublicRoutes } from './public-routes.ts';

/**
 * Public links (Grafana's shared dashboards, Metabase's public links): an editor turns a link on for a dashboard and
 * anyone with it sees the charts, read-only, without signing in. The visitor gets the layout, titles and results,
 * never the SQL, the sources or the saved queries; each widget runs as stored, with only parameter values bound.
 * Visitors are rate limited per address (the free plan's limit) and their runs are audited as nobody's.
 */
export function registerSharingRoutes(app: App, ctx: DashboardContext): void {
  registerShareLinkRoutes(app, ctx);
  registerPublicRoutes(app, ctx);
}
