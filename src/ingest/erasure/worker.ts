import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { randomToken } from '../../kit/crypto.ts';
import type { Database } from '../../kit/db.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import type { StreamBacklog } from '../log/backlog.ts';
import { claimErasure, completeErasure, eraseBatch, releaseErasure, type ClaimedErasure } from './erase.ts';

/** How often every instance looks for an unfinished erasure (one probe of a partial index of unfinished ones). */
const POLL_MS = 2_000;
/** A worker's hold on an erasure, renewed at every batch: a batch that outlives it would be another's to redo. */
export const ERASURE_LEASE_MS = 60_000;
/** How soon an erasure waiting on the log's backlog is looked at again. */
const RECHECK_MS = 1_000;

export interface ErasureWorker {
  /** Looks for work now (an erasure was just requested here). */
  wake(): void;
  /** Stops after the batch in progress; the erasure it held is given back for the next start to take at once. */
  close(): Promise<void>;
}

/**
 * Erases, one erasure at a time per instance, in batches (erase.ts). An erasure is completed only by a pass that
 * found nothing left and started once no event of its user accepted before the request can still arrive: after
 * `settleMs` (every instance has heard of a suppression and every commit then in flight has ended) and, with the log
 * on, once the stream holds nothing published before that (the loaders have stored it). Until then it is given back
 * and looked at again, so an event acknowledged just before the request and stored after the first pass is erased too.
 */
export function startErasureWorker(deps: {
  db: Database;
  batchEvents: number;
  /** INGEST_KEY_CACHE_SECONDS + INGEST_COMMIT_TIMEOUT_SECONDS, in ms. */
  settleMs: number;
  /** The log's backlog, when the log is on. */
  backlog?: StreamBacklog | undefined;
  registry: Registry;
  log: FastifyBaseLogger;
  outage: OutageLog;
}): ErasureWorker {
  const { db, log } = deps;
  const erased = new Counter({
    name: 'ingest_events_erased_total',
    help: "Events deleted by this instance's erasure worker",
    registers: [deps.registry],
  });
  let stopping = false;

  /** Whether nothing of the user accepted before the request can still reach storage. */
  const settled = async (erasure: ClaimedErasure): Promise<boolean> => {
    const settleAt = erasure.requestedAt.getTime() + deps.settleMs;
    if (Date.now() < settleAt) return false;
    if (!deps.backlog) return true;
    const backlog = await deps.backlog.read();
    // The stream does not answer: what it holds is unknown.
    if (!backlog) return false;
    return backlog.events === 0 || Date.now() - backlog.seconds * 1000 > settleAt;
  };

  const work = async (erasure: ClaimedErasure): Promise<void> => {
    while (!stopping) {
      // Asked before the batch: a batch that finds nothing then is the last one needed.
      const done = await settled(erasure);
      const batch = await eraseBatch(db, erasure, deps.batchEvents, ERASURE_LEASE_MS);
      // Another worker holds it now (this one outlived its lease): it goes on from what is stored.
      if (!batch) return;
      erased.inc(batch.deleted);
      if (batch.selected > 0) continue;
      if (done) {
        const deleted = await completeErasure(db, erasure);
        // The id only: the user's id is personal data and stays out of the log.
        if (deleted !== undefined) log.info({ erasure: erasure.id, deleted }, 'erasure completed');
        return;
      }
      const settleAt = erasure.requestedAt.getTime() + deps.settleMs;
      await releaseErasure(db, erasure, new Date(Math.max(settleAt, Date.now() + RECHECK_MS)));
      return;
    }
    await releaseErasure(db, erasure, new Date());
  };

  const loop = pollLoop(
    POLL_MS,
    async () => {
      if (stopping) return false;
      const erasure = await claimErasure(db, ERASURE_LEASE_MS, randomToken(12));
      deps.outage.succeeded();
      if (!erasure) return false;
      await work(erasure);
      return true;
    },
    loopReport(log, 'erasure worker: a pass failed; the erasure is taken again when its lease ends', deps.outage),
    { startNow: true },
  );
  return {
    wake: loop.wake,
    async close() {
      stopping = true;
      await loop.stop();
    },
  };
}
