import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../kit/db.ts';
import type { OutageLog } from '../../../kit/outage-log.ts';
import { loopReport, type LoopReport } from '../../../kit/poll-loop.ts';
import type { ForwardingConfig } from '../config.ts';
import { forwardingGuard } from '../guard.ts';
import { loadTarget } from '../destinations/store.ts';
import type { ForwardingMetrics } from '../metrics.ts';
import { deliverOnce, type DeliveryContext } from './deliver.ts';
import { destinationsWithDueWork } from './outbox.ts';

/**
 * Delivers the outbox of this instance's share of destinations. Every poll it looks for destinations with due
 * work and gives each its own loop (up to INGEST_FORWARDING_MAX_PARALLEL), so a slow or failing destination only
 * ever holds its own loop; a loop sends batch after batch until nothing of its destination is due.
 */
export class DeliveryWorker {
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private readonly ctx: DeliveryContext;
  private readonly db: Database;
  private readonly secretKey: Buffer;
  private readonly config: ForwardingConfig;
  private readonly log: FastifyBaseLogger;
  private readonly outage: OutageLog;
  /** The polls' report: an outage to the outage log (once), anything else logged each time (kit/poll-loop.ts). */
  private readonly looking: LoopReport;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(deps: {
    db: Database;
    secretKey: Buffer;
    config: ForwardingConfig;
    metrics: ForwardingMetrics;
    log: FastifyBaseLogger;
    outage: OutageLog;
  }) {
    this.db = deps.db;
    this.secretKey = deps.secretKey;
    this.config = deps.config;
    this.log = deps.log;
    this.outage = deps.outage;
    this.looking = loopReport(deps.log, 'forwarding: could not look for due work', deps.outage);
    this.ctx = {
      db: deps.db,
      metrics: deps.metrics,
      log: deps.log,
      guard: forwardingGuard(deps.config),
      leaseMs: deps.config.forwardingLeaseMs,
      backoff: { baseMs: deps.config.forwardingRetryBaseMs, maxMs: deps.config.forwardingRetryMaxMs },
      deadLetter: {
        maxAttempts: deps.config.forwardingMaxAttempts,
        deadLetterAfterMs: deps.config.forwardingDeadLetterAfterMs,
      },
      stop: this.abort.signal,
    };
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops polling, cuts requests in flight (their entries are given back untried) and waits for every loop to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.ticking;
    await Promise.allSettled(this.running.values());
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        this.schedule(this.config.forwardingPollMs);
      });
    }, ms);
  }

  private async tick(): Promise<void> {
    const free = this.config.forwardingMaxParallel - this.running.size;
    if (free <= 0 || this.stopped) return;
    let due: string[];
    try {
      due = await destinationsWithDueWork(this.db, [...this.running.keys()], free);
      this.looking.succeeded();
    } catch (err) {
      if (!this.stopped) this.looking.failed(err);
      return;
    }
    for (const id of due) {
      if (this.stopped) break;
      this.running.set(
        id,
        this.serve(id).finally(() => this.running.delete(id)),
      );
    }
  }

  private async serve(destinationId: string): Promise<void> {
    try {
      while (!this.stopped) {
        // Read each round: a destination disabled or given new credentials meanwhile is taken as it is now.
        const target = await loadTarget(this.db, this.secretKey, destinationId);
        if (!target || (await deliverOnce(this.ctx, target)) === 0) return;
      }
    } catch (err) {
      // The deliveries' own retries and backoff are deliverOnce's; this is a round that could not finish.
      if (!this.stopped)
        loopReport(
          this.log.child({ destination: destinationId }),
          'forwarding: delivery loop failed; its entries return when their lease ends',
          this.outage,
        ).failed(err);
    }
  }
}
