import { defineService } from '../kit/service.ts';
import { AUDIT_DEFAULT_PORT, auditSpec, loadAuditConfig } from './config.ts';

/**
 * The service's code is imported when it is started or one of its commands runs, not when the `platform` command
 * loads its list of services: a process running one service then holds only that one's modules (about 50 MB less
 * heap for `platform start ingest` than with all four, which every major GC of the process had to mark).
 */
const app = () => import('./app.ts');
const cli = () => import('./cli.ts');

export const auditService = defineService({
  name: 'audit',
  description: 'accessibility audits (WCAG, axe-core in Chromium), crawls, reports',
  defaultPort: AUDIT_DEFAULT_PORT,
  spec: auditSpec,
  loadConfig: loadAuditConfig,
  address: (config) => ({ host: config.host, port: config.port }),
  buildApp: async (config) => (await app()).buildAuditApp(config),
  openDatabase: async (config) => (await app()).openAuditDatabase(config),
  // The folder app.ts names too; given here so that listing migrations does not load the service's code.
  migrations: new URL('./migrations/', import.meta.url),
  command: async (args, config, io) => (await cli()).auditCommand(args, config, io),
  usage: async () => (await cli()).AUDIT_USAGE,
});
