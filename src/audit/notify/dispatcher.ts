import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import { retryDelayMs, type BackoffPolicy } from '../../kit/outbound/backoff.ts';
import { decideOne } from './evaluate.ts';
import { sendNotice, SendError, type SendDeps } from './send.ts';
import { claimDeliveries, getSettings, markAttemptFailed, markDelivered, type ClaimedDelivery } from './store.ts';

export interface DispatcherOptions extends SendDeps {
  db: Database;
  log: FastifyBaseLogger;
  pollMs: number;
  /** AUDIT_NOTIFY_ATTEMPTS: tries of one notice before it ends failed. */
  attempts: number;
  backoff?: BackoffPolicy;
  outage?: OutageLog;
}

const BACKOFF: BackoffPolicy = { baseMs: 2_000, maxMs: 3_600_000 };
/** Longer than a mail's or a webhook's time limit: a notice being sent is not taken by another instance meanwhile. */
const LEASE_SECONDS = 120;
const BATCH = 10;

/**
 * Every instance runs one: decides the notices of finished site runs (evaluate.ts), then sends the notices due,
 * each stored before it is sent and marked after, so a restart sends what was left and nothing twice over (a notice
 * whose sender died mid-send goes again when its lease ends, with the same webhook-id).
 */
export function startDispatcher(options: DispatcherOptions): () => Promise<void> {
  const loop = pollLoop(
    options.pollMs,
    async () => {
      while (await options.db.transaction((tx) => decideOne(tx, options.log))) {}
      const due = await claimDeliveries(options.db, LEASE_SECONDS, BATCH);
      await Promise.all(due.map((d) => deliver(options, d)));
      return due.length === BATCH;
    },
    loopReport(options.log, 'sending notices failed', options.outage),
    { startNow: true },
  );
  return () => loop.stop();
}

async function deliver(options: DispatcherOptions, delivery: ClaimedDelivery): Promise<void> {
  const { db, log } = options;
  try {
    const settings = await getSettings(db, delivery.siteId);
    await sendNotice(options, delivery, settings.webhookSecretSealed);
    await markDelivered(db, delivery.id);
    log.info({ delivery: delivery.id, channel: delivery.channel, site: delivery.siteId }, 'notice delivered');
  } catch (err) {
    const reason = err instanceof SendError ? err.message : 'the notice could not be sent';
    if (!(err instanceof SendError)) log.error({ err, delivery: delivery.id }, 'sending a notice failed');
    const again = (!(err instanceof SendError) || err.retry) && delivery.attempts < options.attempts;
    const wait = again
      ? retryDelayMs(
          delivery.attempts,
          options.backoff ?? BACKOFF,
          err instanceof SendError ? err.retryAfterMs : undefined,
        )
      : null;
    await markAttemptFailed(db, delivery.id, reason, wait).catch((e: unknown) =>
      log.error({ err: e, delivery: delivery.id }, 'recording a notice failure failed'),
    );
    log.warn({ delivery: delivery.id, channel: delivery.channel, reason, retryInMs: wait }, 'notice not delivered');
  }
}
