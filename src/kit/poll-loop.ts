/**
 * Runs `pass` every `pollMs` (never two at once), again at once while it says more is waiting; `stop` ends the loop and
 * awaits a pass in progress. For outboxes that every instance polls (webhook deliveries, queued logouts): the claim in
 * the database decides who sends what, the loop only decides when to look.
 */
export function pollLoop(
  pollMs: number,
  pass: () => Promise<boolean>,
  onError: (err: unknown) => void,
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
  const timer = setInterval(() => {
    if (!running) running = run().finally(() => (running = undefined));
  }, pollMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
