import { databaseOutage, type App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { createAddressPolicy, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { smtpMailer } from '../../kit/outbound/mail.ts';
import pkg from '../../../package.json' with { type: 'json' };
import type { AuditServiceConfig } from '../config.ts';
import type { OwnerRight } from '../auth/owner-right.ts';
import type { JobWorker } from '../jobs/worker.ts';
import { startDispatcher } from '../notify/dispatcher.ts';
import { registerNotifyRoutes } from '../notify/routes.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import { registerScheduleRoutes } from '../schedules/routes.ts';
import { startScheduler } from '../schedules/scheduler.ts';
import { registerSiteRoutes } from './routes.ts';

/**
 * Sites with their schedules and notices: the routes, and on every instance once it is ready the scheduler (due
 * schedules queue their runs) and the dispatcher (finished runs' notices decided and sent), stopped when it closes.
 */
export function startSiteWork(
  app: App,
  deps: {
    db: Database;
    config: AuditServiceConfig;
    worker: JobWorker;
    policy: AddressPolicy;
    limits: ConfigLimits;
    /** Whether a site's owner may still have it audited: a person who lost the audits right gets no scheduled run. */
    ownerRight: OwnerRight;
  },
): void {
  const { db, config, worker, policy, limits, ownerRight } = deps;
  const send = {
    mailer: smtpMailer(config.smtpUrl, config.mailFrom, app.log, 'AUDIT_SMTP_URL'),
    webhookPolicy: createAddressPolicy(config.webhookAllowHosts),
    secretKey: config.secretKey,
    userAgent: `platform-audit/${pkg.version} (notices)`,
  };
  registerSiteRoutes(app, { db, worker, policy, limits, maxQueued: config.maxQueuedPerKey });
  registerScheduleRoutes(app, { db });
  registerNotifyRoutes(app, { db, ...send });
  const outage = databaseOutage(app);
  let stops: Array<() => Promise<void>> = [];
  app.addHook('onReady', async () => {
    stops = [
      startScheduler({
        db,
        log: app.log,
        policy,
        limits,
        maxQueued: config.maxQueuedPerKey,
        pollMs: config.pollMs,
        queued: () => worker.wake(),
        ownerRight,
        outage,
      }),
      startDispatcher({ db, log: app.log, pollMs: config.pollMs, attempts: config.notifyAttempts, outage, ...send }),
    ];
  });
  app.addHook('onClose', async () => {
    await Promise.all(stops.map((stop) => stop()));
  });
}
