import type { LoopReport } from '../../kit/poll-loop.ts';

export interface Worker {
  name: string;
  /**
   * One pass: claims and does due work; answers whether it found a full batch (so the next pass comes at once), or
   * null when it did not look (no room for more work, or stopping), so the database was not heard from.
   */
  tick(signal: AbortSignal): Promise<boolean | null>;
  /** After the last pass on a stop: waits for work the passes started and did not await, and releases its claims. */
  drain?(): Promise<void>;
}

export interface RunningLoop {
  /** Stops ticking, aborts the pass in progress and waits for it to end (it releases what it claimed). */
  stop(): Promise<void>;
}

/**
 * Runs a worker every `tickMs`, never two passes at once; a full batch runs the next pass without waiting. A pass
 * that throws goes to `report` and the loop goes on: the database keeps the work, the next pass claims it again. Not
 * the kit's pollLoop: a stop aborts the pass in progress (its signal) and drains what it started. `report` is the
 * kit's loopReport, the rule every background loop follows (a database outage logged once, a pass that went through
 * telling the outage log the database is back).
 */
export function startLoop(worker: Worker, tickMs: number, report: LoopReport): RunningLoop {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    let again: boolean | null = false;
    try {
      again = await worker.tick(stop.signal);
      if (again !== null) report.succeeded();
    } catch (err) {
      if (!stop.signal.aborted) report.failed(err);
    }
    if (!stop.signal.aborted) schedule(again ? 0 : tickMs);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = pass();
    }, ms);
  };
  schedule(0);
  return {
    async stop() {
      stop.abort();
      clearTimeout(timer);
      await running;
      await worker.drain?.();
    },
  };
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}
