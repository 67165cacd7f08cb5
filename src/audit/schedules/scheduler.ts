import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, type Database, type Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { VerifierUnavailableError } from '../../kit/auth/admin-guard.ts';
import type { OwnerRight, OwnerStanding } from '../auth/owner-right.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopErrors, pollLoop } from '../../kit/poll-loop.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { insertJob, QueueFullError, SiteBusyError } from '../jobs/store.ts';
import { auditRequest } from '../request/audit-request.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import { missingSecrets } from '../secrets/store.ts';
import { nextRun } from './cron.ts';
import { advanceSchedule, lockDueSchedule, pauseSchedule, type DueSchedule } from './store.ts';

export interface SchedulerOptions {
  db: Database;
  log: FastifyBaseLogger;
  policy: AddressPolicy;
  limits: ConfigLimits;
  maxQueued: number;
  pollMs: number;
  /** Told when a run was queued, so this instance's worker takes it at once. */
  queued: () => void;
  /** Whether the site's owner may still have it audited (auth/owner-right.ts); a run in the name of one who may not is skipped. */
  ownerRight: OwnerRight;
  outage?: OutageLog;
}

/**
 * Queues the runs of due schedules. Every instance runs one; each due schedule is taken by one of them: locked with
 * SKIP LOCKED, its run queued and its next_run_at moved past now in one transaction, so no other instance finds it
 * due, a crash before the commit leaves it due for the next poll, and slots missed while every instance was down
 * come due as one.
 */
export function startScheduler(options: SchedulerOptions): () => Promise<void> {
  const loop = pollLoop(
    options.pollMs,
    () => runOneDue(options),
    loopErrors(options.log, 'running due schedules failed', options.outage),
    { startNow: true },
  );
  return () => loop.stop();
}

/** Takes one due schedule, if any: answers whether there was one. */
export async function runOneDue(options: SchedulerOptions): Promise<boolean> {
  let queued = false;
  let taken: DueSchedule | null = null;
  const found = await options.db
    .transaction(async (tx) => {
      const due = await lockDueSchedule(tx);
      if (!due) return false;
      taken = due;
      const next = nextRun(due, new Date());
      const outcome = await queueRun(tx, options, due);
      await advanceSchedule(tx, due.siteId, next, outcome);
      if ('jobId' in outcome) {
        queued = true;
        options.log.info({ site: due.siteId, job: outcome.jobId, dueAt: due.dueAt }, 'scheduled audit queued');
      } else options.log.warn({ site: due.siteId, reason: outcome.error }, 'scheduled audit not queued');
      return true;
    })
    .catch(async (err: unknown) => {
      const due = taken as DueSchedule | null;
      if (!due || isDatabaseUnavailable(err)) throw err;
      // The slot is passed over, so one schedule that cannot be queued never holds back the others due after it.
      options.log.error({ err, site: due.siteId }, 'queueing a scheduled audit failed');
      let next: Date | null = null;
      try {
        next = nextRun(due, new Date());
      } catch {}
      await options.db.transaction((tx) =>
        next
          ? advanceSchedule(tx, due.siteId, next, { error: 'not queued: the service failed to queue the run' })
          : pauseSchedule(tx, due.siteId, `paused: its cron "${due.cron}" gives no next run`),
      );
      return true;
    });
  if (queued) options.queued();
  return found;
}

async function queueRun(
  tx: Queryable,
  options: SchedulerOptions,
  due: DueSchedule,
): Promise<{ jobId: string } | { error: string }> {
  const refused = await ownerRefusal(options.ownerRight, due.owner);
  if (refused) return { error: refused };
  try {
    const { url, config } = await auditRequest(due.url, due.config, {
      limits: options.limits,
      policy: options.policy,
      missingSecrets: (names) => missingSecrets(tx, due.owner, names),
    });
    const job = await insertJob(tx, {
      owner: due.owner,
      url: url.href,
      config,
      siteId: due.siteId,
      maxQueued: options.maxQueued,
    });
    return { jobId: job.id };
  } catch (err) {
    if (err instanceof SiteBusyError) return { error: 'skipped: the previous run was still pending or running' };
    if (err instanceof QueueFullError || err instanceof HttpError) return { error: `not queued: ${err.message}` };
    throw err;
  }
}

/** Why a scheduled run is not queued in its owner's name, or undefined when it may be. */
async function ownerRefusal(right: OwnerRight, owner: string): Promise<string | undefined> {
  let standing: OwnerStanding;
  try {
    standing = await right(owner);
  } catch (err) {
    if (err instanceof VerifierUnavailableError)
      return "not queued: the owner's right to audits cannot be checked: the identity service did not answer";
    throw err;
  }
  if (standing === 'lost') return "skipped: the site's owner no longer holds the audits right";
  if (standing === 'no-identity')
    return 'not queued: the site belongs to a person of the identity service, and this service has no identity configured to check their right';
  return undefined;
}
