import { defineService } from '../kit/service.ts';
import { AUDIT_MIGRATIONS, buildAuditApp, openAuditDatabase } from './app.ts';
import { auditCommand, AUDIT_USAGE } from './cli.ts';
import { AUDIT_DEFAULT_PORT, auditSpec, loadAuditConfig } from './config.ts';

export const auditService = defineService({
  name: 'audit',
  description: 'accessibility audits (WCAG, axe-core in Chromium), crawls, reports',
  defaultPort: AUDIT_DEFAULT_PORT,
  spec: auditSpec,
  loadConfig: loadAuditConfig,
  address: (config) => ({ host: config.host, port: config.port }),
  buildApp: buildAuditApp,
  openDatabase: openAuditDatabase,
  migrations: AUDIT_MIGRATIONS,
  command: auditCommand,
  usage: AUDIT_USAGE,
});
