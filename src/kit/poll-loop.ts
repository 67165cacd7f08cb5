import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from './db.ts';
import type { OutageLog } from './outage-log.ts';

/**
 * Runs `pass` every `pollMs` (never two at once), again at once while it says more is waiting; `stop` ends the loop and
 * awaits a pass in progress. For the queues every instance polls (webhook deliveries, queued logouts, due audit
 * schedules, audit notices): the claim in the database decides who sends what, the loop only decides when to look.
 */
export function pollLoop(
  pollMs: number,
  pass: () => Promise<boolean>,
  onError: (err: unknown) => void,
  options: { startNow?: boolean } = {},
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    try {
      while (!stopped && (await pass())) {}
    } catch (err) {
      if (!stopped) onError(err);
    }
  };
  const look = () => {
    if (!running) running = run().finally(() => (running = undefined));
  };
  const timer = setInterval(look, pollMs);
  timer.unref();
  // What a restart left waiting (a due schedule, a notice) goes at once rather than a poll later.
  if (options.startNow) look();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * A loop's `onError` for a service with an outage log: the database going away is logged once by the outage log
 * (the requests meet it too), anything else each time with `what`.
 */
export function loopErrors(log: FastifyBaseLogger, what: string, outage?: OutageLog): (err: unknown) => void {
  return (err) => {
    if (isDatabaseUnavailable(err) && outage) outage.failed(err);
    else log.error({ err }, what);
  };
}
