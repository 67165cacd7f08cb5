import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, type Database, type Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { VerifierUnavailableError } from '../../kit/auth/admin-guard.ts';
import type { OwnerRight, OwnerStanding } from '../auth/owner-right.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { insertJob, QueueFullError, SiteBusyError } from '../jobs/store.ts';
import { auditRequest } from '../request/audit-request.ts';
import type { ConfigLimits } from '../request/resolve.ts';
import type { AuditConfig } from '../result/types.ts';
import { missingSecrets } from '../secrets/store.ts';
import { nextRun } from './cron.ts';
import { advanceSchedule, claimDueSchedule, holdClaim, pauseSchedule, type DueSchedule } from './store.ts';

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
  /** How long a claim on a due schedule holds, in seconds: CLAIM_LEASE_SECONDS unless a test shortens it. */
  leaseSeconds?: number;
}

/**
 * How long a claimed schedule stays this instance's. Between the claim and the run queued, identity is asked about the
 * owner's right (at most 5 s, held-scope's time limit) and the URL's host and its session's goto hosts are resolved
 * one after another by the system resolver (no time limit of ours: glibc waits 5 s a try before retrying or asking the
 * next nameserver). That is a few seconds, a minute or two with a dead nameserver and a long session; five minutes
 * leaves room. Outliving the lease costs a second check by another instance, never a second run (the claim token
 * decides who writes), and a holder that died holds the slot back at most this long.
 */
export const CLAIM_LEASE_SECONDS = 300;

/**
 * Queues the runs of due schedules. Every instance runs one, and no transaction stays open across a network call: a
 * due schedule is claimed for a lease with a token of the instance's own (SKIP LOCKED, committed at once), the owner's
 * right and the site's addresses are checked with no transaction open, then one short transaction queues the run and
 * moves next_run_at past now, only while the token still claims the schedule. So each due schedule queues exactly
 * one run across instances: the others do not find it due while the lease holds, and a holder that outlived its lease
 * and lost the claim to another writes nothing. A crash after the claim leaves the schedule due again once the lease
 * passes (the run and the move are committed together or not at all); slots missed while every instance was down
 * come due as one, since next_run_at moves to the first slot after now.
 */
export function startScheduler(options: SchedulerOptions): () => Promise<void> {
  const loop = pollLoop(
    options.pollMs,
    () => runOneDue(options),
    loopReport(options.log, 'running due schedules failed', options.outage),
    { startNow: true },
  );
  return () => loop.stop();
}

type Outcome = { jobId: string } | { error: string };

/** Takes one due schedule, if any: answers whether there was one. */
export async function runOneDue(options: SchedulerOptions): Promise<boolean> {
  const token = randomUUID();
  const due = await claimDueSchedule(options.db, token, options.leaseSeconds ?? CLAIM_LEASE_SECONDS);
  if (!due) return false;
  let outcome: Outcome | null;
  try {
    const checked = await checkRun(options, due);
    outcome = await settle(options, due, token, async (tx) => {
      const next = nextRun(due, new Date());
      const done = 'error' in checked ? checked : await queueRun(tx, options, due, checked);
      await advanceSchedule(tx, due.siteId, next, done);
      return done;
    });
  } catch (err) {
    // A lost database leaves the claim to pass, and the schedule to come due again then.
    if (isDatabaseUnavailable(err)) throw err;
    // The slot is passed over, so one schedule that cannot be queued never holds back the others due after it.
    options.log.error({ err, site: due.siteId }, 'queueing a scheduled audit failed');
    let next: Date | null = null;
    try {
      next = nextRun(due, new Date());
    } catch {}
    await settle(options, due, token, (tx) =>
      next
        ? advanceSchedule(tx, due.siteId, next, { error: 'not queued: the service failed to queue the run' })
        : pauseSchedule(tx, due.siteId, `paused: its cron "${due.cron}" gives no next run`),
    );
    return true;
  }
  if (!outcome) return true;
  if ('jobId' in outcome) {
    options.log.info({ site: due.siteId, job: outcome.jobId, dueAt: due.dueAt }, 'scheduled audit queued');
    options.queued();
  } else options.log.warn({ site: due.siteId, reason: outcome.error }, 'scheduled audit not queued');
  return true;
}

/**
 * Runs `write` in a transaction holding the schedule's claim; null, writing nothing, when `token` no longer claims it
 * (its lease passed and another instance claimed it, or the schedule was changed or deleted meanwhile).
 */
async function settle<T>(
  options: SchedulerOptions,
  due: DueSchedule,
  token: string,
  write: (tx: Queryable) => Promise<T>,
): Promise<T | null> {
  const written = await options.db.transaction(async (tx) =>
    (await holdClaim(tx, due.siteId, token)) ? { value: await write(tx) } : null,
  );
  if (!written)
    options.log.warn({ site: due.siteId, dueAt: due.dueAt }, 'scheduled audit left alone: its claim was lost');
  return written ? written.value : null;
}

/**
 * The run as it would be queued, or why it is not, asked with no transaction open: identity (the owner's right) and
 * DNS (the address policy) may be slow.
 */
async function checkRun(
  options: SchedulerOptions,
  due: DueSchedule,
): Promise<{ url: string; config: AuditConfig } | { error: string }> {
  const refused = await ownerRefusal(options.ownerRight, due.owner);
  if (refused) return { error: refused };
  try {
    const { url, config } = await auditRequest(due.url, due.config, {
      limits: options.limits,
      policy: options.policy,
      missingSecrets: (names) => missingSecrets(options.db, due.owner, names),
    });
    return { url: url.href, config };
  } catch (err) {
    if (err instanceof HttpError) return { error: `not queued: ${err.message}` };
    throw err;
  }
}

async function queueRun(
  tx: Queryable,
  options: SchedulerOptions,
  due: DueSchedule,
  run: { url: string; config: AuditConfig },
): Promise<Outcome> {
  try {
    const job = await insertJob(tx, {
      owner: due.owner,
      url: run.url,
      config: run.config,
      siteId: due.siteId,
      maxQueued: options.maxQueued,
    });
    return { jobId: job.id };
  } catch (err) {
    if (err instanceof SiteBusyError) return { error: 'skipped: the previous run was still pending or running' };
    if (err instanceof QueueFullError) return { error: `not queued: ${err.message}` };
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
