import { createApp, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import pkg from '../../package.json' with { type: 'json' };
import { CALLER_SECURITY_SCHEMES, auditAccessChecks, auditIdentityFromConfig } from './auth/access.ts';
import { ownerRight } from './auth/owner-right.ts';
import { createAuditGuard, type AuditGuard } from './auth/guard.ts';
import { openAuditKeyLookup } from './auth/keys.ts';
import type { AuditServiceConfig } from './config.ts';
import { BrowserHost } from './engine/browser-host.ts';
import { classifyAuditError } from './errors.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { startJobWork } from './jobs/lifecycle.ts';
import { registerJobRoutes } from './jobs/routes.ts';
import { registerLegacyRoutes } from './legacy/routes.ts';
import { createMetrics } from './metrics.ts';
import { registerReportRoutes } from './reports/routes.ts';
import { configLimits, serviceAuditRunner } from './runner.ts';
import { createAddressPolicy } from '../kit/outbound/address-policy.ts';
import { API_CORS_HEADERS, API_CORS_METHODS, registerCors } from '../kit/cors.ts';
import { registerSecretRoutes } from './secrets/routes.ts';
import { registerCompareRoute } from './compare/route.ts';
import { registerKeyRoutes } from './keys/routes.ts';
import { startSiteWork } from './sites/lifecycle.ts';

export const AUDIT_MIGRATIONS = new URL('./migrations/', import.meta.url);

export async function openAuditDatabase(config: AuditServiceConfig): Promise<Database> {
  return openServiceDatabase('audit', config, { poolSize: config.dbPoolSize });
}

/** Opens the database, applies migrations and returns the app, not listening; `app.close()` stops the workers, the browser and the database. */
export async function buildAuditApp(config: AuditServiceConfig): Promise<App> {
  const db = await openServiceDatabase('audit', config, { poolSize: config.dbPoolSize, migrations: AUDIT_MIGRATIONS });
  try {
    return await assemble(config, db);
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function assemble(config: AuditServiceConfig, db: Database): Promise<App> {
  const metrics = createMetrics();
  // The guard's key lookup logs through the app (its invalidation bus), so it is made once the app exists, before
  // any route is served.
  let guard: AuditGuard | undefined;
  const app = await createApp({
    name: 'audit',
    version: pkg.version,
    description:
      'Accessibility audits: WCAG 2.0-2.2 checks of web pages in headless Chromium with axe-core, as queued jobs or within one request, with crawling, reports and OpenACR.',
    logLevel: config.logLevel,
    bodyLimit: 64 * 1024,
    classify: classifyAuditError,
    // `/health` answers Document 3's `{status, version}`; `/ready` and `/metrics` come from the kit too.
    database: { db, migrations: AUDIT_MIGRATIONS, version: pkg.version },
    metrics: metrics.registry,
    // Every route declares CALLER or PUBLIC; the guard runs before the body is read, so a stranger is 401 whatever it sent.
    access: auditAccessChecks((request) => {
      if (!guard) throw new Error('the audit guard was used before the app was assembled');
      return guard(request);
    }),
    openapi: { components: { securitySchemes: CALLER_SECURITY_SCHEMES } },
  });
  const keys = await openAuditKeyLookup(app, db, config);
  const identity = auditIdentityFromConfig(config);
  guard = createAuditGuard(keys, identity);
  registerCors(app, {
    origins: [...new Set([...config.corsOrigins, ...(config.links?.corsOrigins ?? [])])],
    methods: API_CORS_METHODS,
    headers: [...API_CORS_HEADERS, 'X-API-Key'],
    prefix: '/api/v1/',
  });
  const policy = createAddressPolicy(config.allowHosts);
  const host = new BrowserHost(app.log);
  app.addHook('onClose', async () => {
    await host.close();
  });
  const run = serviceAuditRunner(config, { host, policy, metrics, db });
  const worker = startJobWork(app, db, config, metrics, run);
  const limits = configLimits(config);
  registerHealthRoutes(app, db, pkg.version);
  registerLegacyRoutes(app, { db, policy, limits, metrics, maxConcurrent: config.maxSyncAudits, run });
  registerSecretRoutes(app, { db, secretKey: config.secretKey });
  registerJobRoutes(app, {
    db,
    worker,
    policy,
    limits,
    maxQueued: config.maxQueuedPerKey,
    publicUrl: config.publicUrl,
  });
  registerCompareRoute(app, { db });
  registerKeyRoutes(app, { db, keys });
  // Sites, their schedules and notices: routes, the scheduler and the notices' dispatcher (sites/lifecycle.ts).
  startSiteWork(app, { db, config, worker, policy, limits, ownerRight: ownerRight(identity) });
  registerReportRoutes(app, {
    db,
    openAcrDefaults: { authorName: config.openAcrAuthorName, authorEmail: config.openAcrAuthorEmail },
  });
  return app;
}
