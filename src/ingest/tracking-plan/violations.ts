import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import { appendViolations, forgetViolationsBefore } from './store.ts';

const HOUR = 3_600_000;
/** How long counts are kept: the violations API answers at most this far back. */
export const VIOLATION_DAYS = 30;

/**
 * Violations tallied in memory by (project, hour, event, reason) and appended every `flushSeconds` in one statement,
 * so a stream of bad events costs a few map updates each and one write per interval, never a write per event. A
 * failed write keeps the tally for the next one; a crash loses at most one interval's counts (they are counts, not
 * events: the events themselves were stored or rejected as usual).
 */
export interface ViolationTally {
  add(projectId: string, event: string, reason: string): void;
  /** Writes what is tallied now (a read of the counts asks first, so it sees this instance's latest). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createViolationTally(deps: {
  db: Queryable;
  flushSeconds: number;
  log: FastifyBaseLogger;
}): ViolationTally {
  // Key: project \0 hour \0 event \0 reason (a NUL cannot be in any of them: validation refuses it).
  let pending = new Map<string, number>();
  let flushing: Promise<void> | undefined;
  let prunedAt = 0;
  const write = async () => {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    const rows = [...taken].map(([key, n]) => {
      const [project, hour, event, reason] = key.split('\0') as [string, string, string, string];
      return { project, hour: new Date(Number(hour)), event, reason, n };
    });
    try {
      await appendViolations(deps.db, rows);
      if (Date.now() - prunedAt > HOUR) {
        prunedAt = Date.now();
        await forgetViolationsBefore(deps.db, new Date(Date.now() - VIOLATION_DAYS * 24 * HOUR));
      }
    } catch (err) {
      for (const [key, n] of taken) pending.set(key, (pending.get(key) ?? 0) + n);
      deps.log.warn({ err: (err as Error).message }, 'tracking plan violations could not be written; kept for later');
    }
  };
  const flush = () => {
    flushing ??= write().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };
  const timer = setInterval(() => void flush(), deps.flushSeconds * 1000);
  timer.unref();
  return {
    add(projectId, event, reason) {
      const hour = Math.floor(Date.now() / HOUR) * HOUR;
      const key = `${projectId}\0${hour}\0${event}\0${reason}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },
    async flush() {
      // One in flight may have started before the caller's events were tallied: wait for it, then write the rest.
      await flushing;
      await flush();
    },
    async close() {
      clearInterval(timer);
      await this.flush();
    },
  };
}
