import type { FastifyBaseLogger } from 'fastify';

export interface Worker {
  name: string;
  /** One pass: claims and does due work; answers whether it found a full batch (so the next pass comes at once). */
  tick(signal: AbortSignal): Promise<boolean>;
  /** After the last pass on a stop: waits for work the passes started and did not await, and releases its claims. */
  drain?(): Promise<void>;
}

export interface RunningLoop {
  /** Stops ticking, aborts the pass in progress and waits for it to end (it releases what it claimed). */
  stop(): Promise<void>;
}

/**
 * Runs a worker every `tickMs`, never two passes at once; a full batch runs the next pass without waiting. A pass
 * that throws is logged and the loop goes on: the database keeps the work, the next pass claims it again.
 */
export function startLoop(worker: Worker, tickMs: number, log: FastifyBaseLogger): RunningLoop {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    let again = false;
    try {
      again = await worker.tick(stop.signal);
    } catch (err) {
      if (!stop.signal.aborted) log.error({ err }, `${worker.name}: a pass failed`);
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
