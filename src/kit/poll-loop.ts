/**
 * Runs `pass` every `pollMs` (never two at once), again at once while it says more is waiting; `stop` ends the loop and
 * awaits a pass in progress. For outboxes that every instance polls (webhook deliveries, queued logouts, queued mails):
 * the claim in the database decides who sends what, the loop only decides when to look. `wake` looks now rather than at
 * the next tick, for work this instance has just stored; during a pass, it asks for one more once the pass is done (the
 * pass in progress may have looked before the new work was there).
 */
export function pollLoop(
  pollMs: number,
  pass: () => Promise<boolean>,
  onError: (err: unknown) => void,
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
    } catch (err) {
      if (!stopped) onError(err);
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
