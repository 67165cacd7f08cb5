import type { Registry } from 'prom-client';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { registerForwardingAdminRoutes } from './admin-routes.ts';
import { registerForwardingInspectRoutes } from './inspect-routes.ts';
import { checkForwardingConfig, type ForwardingConfig } from './config.ts';
import { DeliveryWorker } from './delivery/worker.ts';
import { sealPlainBaseUrls } from './destinations/store.ts';
import { forwardingGuard } from './guard.ts';
import { createForwardingMetrics } from './metrics.ts';

export interface ForwardingDeps {
  db: Database;
  config: ForwardingConfig;
  secretKey: Buffer;
  registry: Registry;
  /** The service's one record of a database outage: the worker's polls meet it too, and say so only there. */
  outage: OutageLog;
}

/**
 * Forwarding's part of the ingest app: URLs still in clear sealed, admin routes for destinations and dead letters, its metrics, and — when
 * INGEST_FORWARDING_ENABLED — the delivery worker, stopped by an onClose hook that runs before the database closes.
 */
export async function registerForwarding(app: App, deps: ForwardingDeps): Promise<void> {
  checkForwardingConfig(deps.config);
  // Rows from before URLs were sealed (migration 004 cannot seal: SQL has no key) are sealed at the first start.
  const sealed = await sealPlainBaseUrls(deps.db, deps.secretKey);
  if (sealed > 0)
    app.log.info({ destinations: sealed }, 'forwarding: sealed destination URLs kept in clear by an older version');
  const metrics = createForwardingMetrics(deps.registry, deps.db);
  const guard = forwardingGuard(deps.config);
  registerForwardingAdminRoutes(app, { ...deps, guard });
  registerForwardingInspectRoutes(app, { ...deps, guard });
  if (!deps.config.forwardingEnabled) return;
  const worker = new DeliveryWorker({
    db: deps.db,
    secretKey: deps.secretKey,
    config: deps.config,
    metrics,
    log: app.log.child({ component: 'forwarding' }),
    outage: deps.outage,
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());
}
