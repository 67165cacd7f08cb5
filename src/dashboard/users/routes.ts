import type { App } from '../../kit/app.ts';
import type { DashboardContext } from '../context.ts';
import { registerPasswordLinkRoute } from './password-link-routes.ts';
import { registerUserReadRoutes } from './read-routes.ts';
import { registerUserWriteRoutes } from './write-routes.ts';

/** User administration (admin or owner): only an owner may make or change owners, and a tenant keeps at least one active owner. */
export function registerUserRoutes(app: App, ctx: DashboardContext): void {
  registerUserReadRoutes(app, ctx);
  registerUserWriteRoutes(app, ctx);
  registerPasswordLinkRoute(app, ctx);
}
