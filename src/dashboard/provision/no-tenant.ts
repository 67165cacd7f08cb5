import { dashboardPublicUrl, type DashboardConfig } from '../config.ts';
import { platformParts } from './platform.ts';

/**
 * What `platform dashboard provision` says when no tenant exists yet (a fresh clone): the steps that make the first
 * owner, then the command again; and, on embedded storage, that the platform data needs PostgreSQL as well.
 */
export function noTenantYet(config: DashboardConfig): string {
  const parts = platformParts(config);
  const embedded = !parts.events.url && !parts.audits.url;
  return [
    'no tenant exists yet, so the platform data and files without `tenant` have nowhere to go. Make the first owner, then run `npx platform dashboard provision` again:',
    `  - in the web app: \`npm start\`, open ${dashboardPublicUrl(config)}/ and fill in the first-run form${embedded ? '' : ' (it adds the platform data itself, unless DASHBOARD_PLATFORM_DATA=false)'};`,
    '  - or from this shell, while the platform is stopped: `npx platform dashboard tenants create --slug acme --name Acme`, then `npx platform dashboard users create --tenant acme --email you@example.com --name "Your Name" --role owner`.',
    ...(embedded
      ? [
          'The platform data also needs the services on PostgreSQL: set DATABASE_URL (now the ingest and audit services keep their data in embedded storage, which only their own process can open).',
        ]
      : []),
  ].join('\n');
}
