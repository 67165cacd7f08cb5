import { createApp, databaseOutage, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import pkg from '../../package.json' with { type: 'json' };
import { introspectionVerifier } from '../kit/auth/introspection.ts';
import { DPOP_SCHEME_NOTE } from '../kit/auth/dpop.ts';
import { auditAccessChecks } from './auth/access.ts';
import { createAuditGuard, type AuditGuard } from './auth/guard.ts';
import { openAuditKeyLookup } from './auth/keys.ts';
import type { AuditServiceConfig } from './config.ts';
import { BrowserHost } from './engine/browser-host.ts';
import { runAudit } from './engine/auditor.ts';
import { classifyAuditError } from './errors.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { registerJobRoutes } from './jobs/routes.ts';
import { JobWorker } from './jobs/worker.ts';
import { startRetentionSweep } from './jobs/retention.ts';
import { registerLegacyRoutes } from './legacy/routes.ts';
import { createMetrics } from './metrics.ts';
import { registerReportRoutes } from './reports/routes.ts';
import type { ConfigLimits } from './request/resolve.ts';
import type { AuditConfig, AuditResult } from './result/types.ts';
import { createAddressPolicy } from './safety/address-policy.ts';
import { assessWithLlm } from './llm/assess.ts';
import type { LlmPageFacts } from './llm/facts.ts';

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
  const tokens = config.identityUrl
    ? {
        verifier: introspectionVerifier({
          identityUrl: config.identityUrl,
          clientId: config.identityClientId!,
          clientSecret: config.identityClientSecret!,
        }),
        requiredScope: config.requiredScope,
        publicUrl: config.publicUrl,
      }
    : null;
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
    openapi: {
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An API key from `platform audit keys create` (also accepted as a Bearer token)',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: `An API key, or an access token of the identity service when introspection is configured. ${DPOP_SCHEME_NOTE}`,
          },
        },
      },
    },
  });
  guard = createAuditGuard(await openAuditKeyLookup(app, db, config), tokens);
  const policy = createAddressPolicy(config.allowHosts);
  const host = new BrowserHost(app.log);
  app.addHook('onClose', async () => {
    await host.close();
  });
  const limits: ConfigLimits = {
    defaultVersion: config.defaultVersion,
    defaultLevel: config.defaultLevel,
    maxDepth: config.maxDepth,
    maxPages: config.maxPages,
  };
  const timing = {
    timeoutMs: config.pageTimeoutSeconds * 1000,
    networkIdleMs: config.networkIdleMs,
    settleMs: config.settleMs,
  };

  // A request that names no provider gets the first one with a key, so `llm: {enabled: true}` works on a configured server.
  const defaultProvider = config.openaiApiKey
    ? ('openai' as const)
    : config.anthropicApiKey
      ? ('anthropic' as const)
      : ('openai' as const);
  const llm = (facts: LlmPageFacts[], auditConfig: AuditConfig, signal?: AbortSignal) =>
    assessWithLlm(
      facts,
      { provider: auditConfig.llm.provider ?? defaultProvider, model: auditConfig.llm.model },
      config,
      signal,
    );

  const run = async (url: string, auditConfig: AuditConfig, signal: AbortSignal): Promise<AuditResult> => {
    metrics.running.inc();
    try {
      // Pages are counted as they are recorded: an audit whose only page failed (a site down, a 404) throws and has
      // no result, and its page must still count as failed.
      const onPage = (page: { status: 'audited' | 'failed'; durationMs: number }) => {
        metrics.pages.inc({ outcome: page.status });
        if (page.status === 'audited') metrics.pageSeconds.observe(page.durationMs / 1000);
      };
      return await runAudit(
        url,
        auditConfig,
        {
          host,
          policy,
          timing,
          pageConcurrency: config.pageConcurrency,
          maxElementsPerRule: config.maxElementsPerRule,
          llm,
          onPage,
        },
        signal,
      );
    } finally {
      metrics.running.dec();
    }
  };

  const worker = new JobWorker({
    db,
    log: app.log,
    metrics,
    run,
    concurrency: config.concurrency,
    leaseSeconds: config.leaseSeconds,
    maxAttempts: config.maxAttempts,
    pollMs: config.pollMs,
    outage: databaseOutage(app),
  });
  // Stopped before the browser and the database close (onClose hooks run in reverse order of registration).
  app.addHook('onClose', async () => {
    await worker.stop();
  });
  app.addHook('onReady', async () => {
    worker.start();
  });
  // Every instance sweeps (no instance is special); the sweep's DELETE is safe to run on several at once.
  let stopRetention: () => Promise<void> = async () => {};
  app.addHook('onReady', async () => {
    stopRetention = startRetentionSweep({ db, log: app.log, days: config.retentionDays, deleted: metrics.jobsDeleted });
  });
  app.addHook('onClose', async () => {
    await stopRetention();
  });

  registerHealthRoutes(app, db, pkg.version);
  registerLegacyRoutes(app, { policy, limits, metrics, maxConcurrent: config.maxSyncAudits, run });
  registerJobRoutes(app, {
    db,
    worker,
    policy,
    limits,
    maxQueued: config.maxQueuedPerKey,
    publicUrl: config.publicUrl,
  });
  registerReportRoutes(app, {
    db,
    openAcrDefaults: { authorName: config.openAcrAuthorName, authorEmail: config.openAcrAuthorEmail },
  });
  return app;
}
