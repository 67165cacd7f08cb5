import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, type LoopReport } from '../../kit/poll-loop.ts';
import { AuditCancelledError, AuditFailedError } from '../engine/audit-errors.ts';
import type { AuditConfig, AuditResult } from '../result/types.ts';
import type { AuditMetrics } from '../metrics.ts';
import {
  claimJob,
  completeJob,
  failAttempt,
  recordProgress,
  releaseJob,
  renewLease,
  type ClaimedJob,
} from './store.ts';

/** Runs one audit for `owner`, whose stored secrets its session may name; `progress` is told each page recorded. */
export type RunAudit = (
  url: string,
  config: AuditConfig,
  signal: AbortSignal,
  owner: string,
  progress?: (pagesDone: number) => void,
) => Promise<AuditResult>;

export interface WorkerOptions {
  db: Database;
  log: FastifyBaseLogger;
  metrics: AuditMetrics;
  run: RunAudit;
  concurrency: number;
  leaseSeconds: number;
  maxAttempts: number;
  pollMs: number;
  /** The app's outage log: a poll that cannot reach the database is reported there, once per outage. */
  outage?: OutageLog;
}

/** How often a running job's lease is renewed, which is also how soon a cancellation from another instance is noticed. */
const HEARTBEAT_MS = 1_000;

/**
 * Takes jobs from the database, `concurrency` at a time, and runs them. Each running job's lease is renewed
 * every second; when the renewal finds the job no longer ours (cancelled, or taken over after we stalled)
 * the audit is stopped and its browser context closed. A DELETE on this instance stops it at once.
 */
export class JobWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly options: WorkerOptions;
  /** The kit's rule for a background loop's polls (kit/poll-loop.ts loopReport): an outage logged once. */
  private readonly report: LoopReport;
  private readonly running = new Map<string, AbortController>();
  private readonly finished = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private filling = false;
  private stopped = false;

  constructor(options: WorkerOptions) {
    this.options = options;
    this.report = loopReport(options.log, 'claiming an audit job failed', options.outage);
  }

  start(): void {
    if (this.options.concurrency > 0) this.wake();
  }

  /** Looks for work now (a job was just created here) instead of at the next poll. */
  wake(): void {
    if (this.stopped || this.options.concurrency === 0) return;
    void this.fill();
  }

  /** Stops a job running on this instance (its row is already cancelled). */
  cancelLocal(id: string): void {
    this.running.get(id)?.abort();
  }

  private async fill(): Promise<void> {
    if (this.filling) return;
    this.filling = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      while (!this.stopped && this.running.size < this.options.concurrency) {
        const job = await claimJob(this.options.db, this.id, this.options.leaseSeconds, this.options.maxAttempts);
        // Here, not after the loop: a worker with every slot busy does not look, and has not heard from the database.
        this.report.succeeded();
        if (!job) break;
        const controller = new AbortController();
        this.running.set(job.id, controller);
        const done = this.execute(job, controller).finally(() => {
          this.running.delete(job.id);
          this.finished.delete(done);
          this.wake();
        });
        this.finished.add(done);
      }
    } catch (err) {
      // Polling goes on through an outage; one line for it, not one per poll.
      this.report.failed(err);
    } finally {
      this.filling = false;
      if (!this.stopped) this.timer = setTimeout(() => void this.fill(), this.options.pollMs);
    }
  }

  private async execute(job: ClaimedJob, controller: AbortController): Promise<void> {
    const { id, url, config, attempts, owner } = job;
    const { db, log, metrics, leaseSeconds } = this.options;
    const heartbeat = setInterval(() => {
      renewLease(db, id, this.id, leaseSeconds).then(
        (ours) => {
          if (!ours) controller.abort();
        },
        (err: unknown) => log.warn({ err, job: id }, 'renewing an audit lease failed'),
      );
    }, HEARTBEAT_MS);
    log.info({ job: id, attempt: attempts }, 'audit started');
    // The engine stops at its next check of the signal; a browser call that never returns has none, and must not hold the
    // job, the worker's slot or a shutdown (seen in CI: a job cancelled mid-visit kept renewing its lease). Its leftover
    // work ends with the page it is on, or with the browser at shutdown.
    const abandoned = new Promise<never>((_resolve, reject) => {
      if (controller.signal.aborted) reject(new AuditCancelledError());
      controller.signal.addEventListener('abort', () => reject(new AuditCancelledError()), { once: true });
    });
    abandoned.catch(() => {});
    // One write at a time, in order, so a slow write never lands after a later count.
    let written = Promise.resolve();
    const progress = (pagesDone: number) => {
      written = written
        .then(() => recordProgress(db, id, this.id, pagesDone))
        .catch((err: unknown) => log.warn({ err, job: id }, 'recording an audit progress failed'));
    };
    try {
      const running = this.options.run(url, config, controller.signal, owner, progress);
      // Once abandoned, its own failure (the browser closing under it) is nobody's to handle.
      running.catch(() => {});
      const result = await Promise.race([running, abandoned]);
      await written;
      if (await completeJob(db, id, this.id, result)) {
        metrics.jobs.inc({ status: 'completed' });
        log.info({ job: id, pages: result.stats.totalPages, findings: result.stats.totalFindings }, 'audit completed');
      }
    } catch (err) {
      if (this.stopped && controller.signal.aborted) {
        await releaseJob(db, id, this.id).catch(() => {});
        return;
      }
      if (err instanceof AuditCancelledError || controller.signal.aborted) {
        log.info({ job: id }, 'audit stopped: cancelled or no longer ours');
        metrics.jobs.inc({ status: 'cancelled' });
        return;
      }
      const reason = err instanceof AuditFailedError ? err.message : 'the audit failed unexpectedly';
      if (!(err instanceof AuditFailedError)) log.error({ err, job: id }, 'audit failed');
      const retry = (!(err instanceof AuditFailedError) || err.retryable) && attempts < this.options.maxAttempts;
      await failAttempt(db, id, this.id, reason, retry).catch((e: unknown) =>
        log.error({ err: e, job: id }, 'recording an audit failure failed'),
      );
      if (!retry) metrics.jobs.inc({ status: 'failed' });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Stops taking jobs and gives running ones back to the queue, so another instance resumes them without waiting out a lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const controller of this.running.values()) controller.abort();
    await Promise.allSettled([...this.finished]);
  }
}
