import { hostname } from 'node:os';
import { databaseOutage, type App } from '../../kit/app.ts';
import { loopReport } from '../../kit/poll-loop.ts';
import { createAddressPolicy } from '../../kit/outbound/address-policy.ts';
import { smtpMailer } from '../../kit/outbound/mail.ts';
import { alertEvaluator } from '../alerts/evaluator.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import { notificationDeliverer } from '../notifications/outbox.ts';
import type { SendDeps } from '../notifications/send.ts';
import type { Renderer } from '../render/renderer.ts';
import { startLoop, type Worker } from './loop.ts';
import type { SubscriptionDeps } from '../subscriptions/send.ts';
import { subscriptionSender } from '../subscriptions/worker.ts';
import pkg from '../../../package.json' with { type: 'json' };

/** What sends notifications and subscription mail: the SMTP mailer and the guarded POST's address policy. */
export function outboundDeps(ctx: DashboardContext): SendDeps {
  return {
    mailer: smtpMailer(ctx.config.smtpUrl, ctx.config.mailFrom, ctx.log, 'DASHBOARD_SMTP_URL'),
    policy: createAddressPolicy(ctx.config.webhookAllowHosts),
    secretKey: ctx.secretKey,
    timeoutMs: 15_000,
    userAgent: `platform-dashboard/${pkg.version}`,
  };
}

/** What a subscription's send needs: the runner, the renderer, the mailer and the dashboard's public URL. */
export function subscriptionDeps(ctx: DashboardContext, outbound: SendDeps, renderer: Renderer): SubscriptionDeps {
  return {
    db: ctx.db,
    sql: ctx.sql,
    tokens: ctx.tokens,
    mailer: outbound.mailer,
    renderer,
    publicUrl: dashboardPublicUrl(ctx.config),
  };
}

export const instanceIdOf = (ctx: DashboardContext) => ctx.config.instanceId ?? `${hostname()}-${process.pid}`;

/**
 * The instance's background work, started once the app listens and stopped before it closes: the alert evaluator,
 * the notification outbox and the subscriptions. Off with DASHBOARD_SCHEDULER=false.
 */
export function startScheduler(app: App, ctx: DashboardContext, deps: SendDeps, subscriptions: SubscriptionDeps): void {
  if (!ctx.config.schedulerEnabled) return;
  const instanceId = instanceIdOf(ctx);
  const leaseSeconds = ctx.config.schedulerLeaseSeconds;
  const workers: Worker[] = [
    alertEvaluator(ctx, { instanceId, leaseSeconds, publicUrl: dashboardPublicUrl(ctx.config) }),
    notificationDeliverer(ctx.db, deps, { instanceId, leaseSeconds }),
    subscriptionSender(subscriptions, { instanceId, leaseSeconds }),
  ];
  const outage = databaseOutage(app);
  let loops: ReturnType<typeof startLoop>[] = [];
  app.addHook('onReady', async () => {
    loops = workers.map((w) =>
      startLoop(w, ctx.config.schedulerTickMs, loopReport(ctx.log, `${w.name}: a pass failed`, outage)),
    );
  });
  app.addHook('preClose', async () => {
    await Promise.all(loops.map((l) => l.stop()));
  });
}
