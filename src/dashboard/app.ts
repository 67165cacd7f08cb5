import { createApp, databaseOutage, type App } from '../kit/app.ts';
import type { Database } from '../kit/db.ts';
import { Registry } from '../kit/metrics.ts';
import { loopReport, pollLoop } from '../kit/poll-loop.ts';
import { connectRedis } from '../kit/redis.ts';
import { openServiceDatabase } from '../kit/service-config.ts';
import { dashboardAccess, type AccessDeps } from './auth/access.ts';
import { jwtKeys } from './auth/jwt.ts';
import { registerSessionRoutes } from './auth/routes.ts';
import { purgeExpired, type TokenSettings } from './auth/sessions.ts';
import type { AuthUser } from './auth/user.ts';
import { bootstrapFirstOwner, ensureDevUser } from './bootstrap.ts';
import type { DashboardConfig } from './config.ts';
import type { DashboardContext } from './context.ts';
import { classifyDashboardError } from './errors.ts';
import { loginProviders } from './login/registry.ts';
import { registerLoginRoutes } from './login/routes.ts';
import { registerAuditRoutes } from './audit/routes.ts';
import { registerDashboardRoutes } from './dashboards/routes.ts';
import { registerTransferRoutes } from './transfer/routes.ts';
import { registerSharingRoutes } from './sharing/routes.ts';
import { registerDataSourceRoutes } from './datasources/routes.ts';
import { registerQueryRoutes } from './queries/routes.ts';
import { registerTenantRoutes } from './tenants/routes.ts';
import { registerUserRoutes } from './users/routes.ts';
import { registerSetupRoutes } from './setup/routes.ts';
import { registerAlertRoutes } from './alerts/routes.ts';
import { registerChannelRoutes } from './notifications/routes.ts';
import { outboundDeps, startScheduler, subscriptionDeps } from './scheduling/start.ts';
import { registerSubscriptionRoutes } from './subscriptions/routes.ts';
import { registerDownloadRoutes } from './downloads/routes.ts';
import { createRenderer, type Renderer } from './render/renderer.ts';
import { registerWebRoutes } from './web/routes.ts';
import { consoleOrigins, registerConsoleConfig } from './console/routes.ts';
import { ProvisioningError } from './provision/format.ts';
import { provisionAtStart, provisionFirstRun, trackFirstRun, waitForPlatformTables } from './provision/run.ts';
import { StartupError } from '../kit/start-errors.ts';
import { createRateLimiter, type RateLimiter } from './ratelimit/limiter.ts';
import { registerCors } from '../kit/cors.ts';
import { SqlRunner } from './sql/runner.ts';
import pkg from '../../package.json' with { type: 'json' };

export const DASHBOARD_MIGRATIONS = new URL('./migrations/', import.meta.url);

export async function openDashboardDatabase(config: DashboardConfig): Promise<Database> {
  return openServiceDatabase('dashboard', config, { poolSize: config.dbPoolSize });
}

/** Opens the database, applies migrations and returns the app, not listening; `app.close()` releases everything. */
export async function buildDashboardApp(config: DashboardConfig): Promise<App> {
  const db = await openServiceDatabase('dashboard', config, {
    poolSize: config.dbPoolSize,
    migrations: DASHBOARD_MIGRATIONS,
  });
  let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
  try {
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
    return await assemble(config, db, config.secretKey, redis);
  } catch (err) {
    redis?.disconnect();
    await db.close();
    throw err;
  }
}

async function assemble(
  config: DashboardConfig,
  db: Database,
  secretKey: Buffer,
  redis: Awaited<ReturnType<typeof connectRedis>> | undefined,
): Promise<App> {
  const tokens: TokenSettings = {
    keys: jwtKeys(config.jwtSecret, secretKey),
    accessTtl: config.accessTokenTtl,
    refreshTtl: config.refreshTokenTtl,
  };
  const devUser = config.authDisabled ? await ensureDevUser(db) : undefined;
  const metrics = new Registry();
  let limiter: RateLimiter | undefined;
  const app = await createDashboardApp(config, db, metrics, {
    db,
    keys: tokens.keys,
    devUser,
    limiter: () => {
      if (!limiter) throw new Error('the rate limiter is made before the app answers requests');
      return limiter;
    },
  });
  app.decorateRequest('user', null);
  app.addHook('onClose', async () => {
    redis?.disconnect();
  });
  purgeExpiredTokens(app, db);
  const sql = sqlRunner(app, config, secretKey, metrics);
  const ctx: DashboardContext = { db, config, secretKey, tokens, log: app.log, sql };

  registerCors(app, { origins: config.corsOrigins, methods: config.corsMethods, headers: config.corsHeaders });
  if (devUser) warnAuthDisabled(app, devUser);
  await provisionOnStart(app, db, config);
  limiter = await createRateLimiter(app, redis, config.redisPrefix, config.rateLimits);
  registerRoutes(app, ctx, createRenderer(ctx, metrics));
  return app;
}

function createDashboardApp(config: DashboardConfig, db: Database, metrics: Registry, access: AccessDeps) {
  return createApp({
    name: 'dashboard',
    version: pkg.version,
    description:
      'Multi-tenant dashboards over PostgreSQL and MySQL data sources: dashboards, data sources, queries, users, tenants, sign-in and tokens (Document 1).',
    logLevel: config.logLevel,
    bodyLimit: 1024 * 1024,
    classify: classifyDashboardError,
    database: { db, migrations: DASHBOARD_MIGRATIONS },
    metrics,
    access: dashboardAccess(access),
    openapi: {
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
}

/** Every 10 minutes; a close waits for a purge under way (the database closes after it). */
function purgeExpiredTokens(app: App, db: Database): void {
  const purge = pollLoop(
    10 * 60_000,
    async () => {
      await purgeExpired(db);
      return false;
    },
    loopReport(app.log, 'purge of expired tokens failed', databaseOutage(app)),
  );
  app.addHook('onClose', purge.stop);
}

function sqlRunner(app: App, config: DashboardConfig, secretKey: Buffer, metrics: Registry): SqlRunner {
  const sql = new SqlRunner({
    secretKey,
    envPrefix: config.dataSourceEnvPrefix,
    deniedNetworks: config.dataSourceDeniedNetworks,
    allowedNetworks: config.dataSourceAllowedNetworks,
    metrics,
  });
  app.addHook('onClose', async () => sql.close());
  return sql;
}

function warnAuthDisabled(app: App, devUser: AuthUser): void {
  const banner = `AUTHENTICATION IS DISABLED (DASHBOARD_AUTH_DISABLED=true): every request acts as ${devUser.email}, owner of the "dev" tenant. Local development only.`;
  app.log.warn(banner);
  process.stderr.write(`\n!!! dashboard: ${banner}\n\n`);
}

/** The operator's first owner, the provisioning files, and on the first run the platform data (perhaps waiting for it). */
async function provisionOnStart(app: App, db: Database, config: DashboardConfig): Promise<void> {
  const firstRun = await bootstrapFirstOwner(db, config, app.log);
  await provisionAtStart(db, config, app.log).catch((err: unknown) => {
    throw err instanceof ProvisioningError ? new StartupError(`provisioning file ${err.message}`, { cause: err }) : err;
  });
  if (!firstRun || !(await provisionFirstRun(db, config, app.log)).notYet) return;
  const stop = new AbortController();
  const waiting = waitForPlatformTables(db, config, app.log, stop.signal);
  trackFirstRun(app, waiting);
  // Stop looking, and let a provisioning in progress finish before the database closes (it closes last).
  app.addHook('onClose', async () => {
    stop.abort();
    await waiting;
  });
}

/** Feature routes: each folder registers its own. */
function registerRoutes(app: App, ctx: DashboardContext, renderer: Renderer): void {
  registerSessionRoutes(app, ctx);
  registerLoginRoutes(app, ctx, loginProviders(ctx.config));
  registerTransferRoutes(app, ctx);
  registerDashboardRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerTenantRoutes(app, ctx);
  registerAuditRoutes(app, ctx);
  registerDataSourceRoutes(app, ctx);
  registerQueryRoutes(app, ctx);
  registerSharingRoutes(app, ctx);
  registerSetupRoutes(app, ctx);
  const outbound = outboundDeps(ctx);
  registerAlertRoutes(app, ctx);
  registerChannelRoutes(app, ctx, outbound);
  const subscriptions = subscriptionDeps(ctx, outbound, renderer);
  registerSubscriptionRoutes(app, ctx, subscriptions);
  registerDownloadRoutes(app, ctx, renderer);
  startScheduler(app, ctx, outbound, subscriptions);
  registerConsoleConfig(app, ctx.config.links?.console);
  registerWebRoutes(app, undefined, consoleOrigins(ctx.config.links?.console));
}
