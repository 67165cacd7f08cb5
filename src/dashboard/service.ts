import { defineService } from '../kit/service.ts';
import { buildDashboardApp, DASHBOARD_MIGRATIONS, openDashboardDatabase } from './app.ts';
import { dashboardCommand, DASHBOARD_USAGE } from './cli.ts';
import { DASHBOARD_DEFAULT_PORT, dashboardSpec, loadDashboardConfig } from './config.ts';

export const dashboardService = defineService({
  name: 'dashboard',
  description: 'multi-tenant dashboards over PostgreSQL and MySQL data sources',
  defaultPort: DASHBOARD_DEFAULT_PORT,
  spec: dashboardSpec,
  loadConfig: loadDashboardConfig,
  address: (config) => ({ host: config.host, port: config.port }),
  buildApp: buildDashboardApp,
  openDatabase: openDashboardDatabase,
  migrations: DASHBOARD_MIGRATIONS,
  command: dashboardCommand,
  usage: DASHBOARD_USAGE,
});
