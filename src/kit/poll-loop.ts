import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from './db.ts';
import type { OutageLog } from './outage-log.ts';

/**
 * Runs `pass` every `pollMs` (never two at once), again at once while it says more is waiting; `stop` ends the loop and
 * awaits a pass in progress. For the queues every instance polls (webhook deliveries, queued logouts, queued mails,
 * due audit schedules, audit notices): the claim in the database decides who sends what, the loop only decides when to
 * look. `wake` looks now rather than at the next tick, for work this instance has just stored; during a pass, it asks
 * for one more once the pass is done (the pass in progress may have looked before the new work was there). A pass that
 * throws goes to `report.failed` and the next poll tries again; passes that went through go to `report.succeeded`
 * (each loop's pass begins by reading the database, so they mean it answered).
 */
export function pollLoop(
  pollMs: number,
  pass: () => Promise<boolean>,
  report: LoopReport,
  options: { startNow?: boolean } = {},
): { stop(): Promise<void>; wake(): void } {
  let running: Promise<void> | undefined;
  let stopped = false;
  let again = false;
  const run = async () => {
    try {
      do {
        again = false;
        while (!stopped && (await pass())) {}
      } while (again && !stopped);
      report.succeeded();
    } catch (err) {
      if (!stopped) report.failed(err);
    } finally {
      // Here rather than in a `.finally` of the promise: a wake between the last look at `again` and then would be lost.
      running = undefined;
    }
  };
  const start = () => {
    if (!stopped && !running) running = run();
  };
  const timer = setInterval(start, pollMs);
  timer.unref();
  // What a restart left waiting (a due schedule, a notice) goes at once rather than a poll later.
  if (options.startNow) start();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    wake() {
      if (running) again = true;
      else start();
    },
  };
}

/** Where a background loop tells how its passes went (loopReport). */
export interface LoopReport {
  failed(err: unknown): void;
  succeeded(): void;
}

/**
 * How every background loop of a service reports to the app's outage log (kit/app.ts databaseOutage), the one place
 * for the rule: the database going away is logged once by the outage log, however many loops and requests meet it;
 * anything else each time, as `what` with the error; a pass that went through tells the outage log the database is
 * back, so a service without traffic logs the recovery too. Without an outage log (a loop run alone, in a test), every
 * failure is logged.
 */
export function loopReport(log: FastifyBaseLogger, what: string, outage?: OutageLog): LoopReport {
  return {
    failed(err) {
      if (isDatabaseUnavailable(err) && outage) outage.failed(err);
      else log.error({ err }, what);
    },
    succeeded() {
      outage?.succeeded();
    },
  };
}
