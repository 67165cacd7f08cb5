/**
 * A micro-batcher: callers submit one item each and get its own result, while the items go to the
 * database many per round trip. Under load most of the cost of a small statement is the round trip
 * and the commit (a socket write, waking a backend, planning, an fsync), not the row, so sharing one
 * across many callers is what lets a service keep up.
 *
 * Items wait in a queue; while fewer than `maxInFlight` batches are out, the queue is taken (up to
 * `maxBatch` items and `maxWeight` of weight, an item never split) into one call of `run`. Nothing is
 * acknowledged before its batch has run: every caller waits for the call that holds its item.
 */
export interface BatcherOptions<I, O> {
  /** Runs one batch: resolves one result per item, in the items' order, or rejects for all of them. */
  run(items: I[], group: string): Promise<O[]>;
  /** Batches out at once; items arriving meanwhile wait and gather into the next. */
  maxInFlight: number;
  /** Most items one batch takes. */
  maxBatch: number;
  /** `tick`: gather what arrives during one turn of the event loop before sending (a few microseconds of delay
   * that fill batches under load); `none`: send at once whenever a slot is free (an idle service sends a lone item without delay). */
  gather: 'tick' | 'none';
  /** Items of different groups never share a batch (a different statement per group). */
  group?: (item: I) => string;
  /** Items with the same key, both still waiting, share one place in the batch and one result. A waiting
   * item only ever joins a batch not yet sent, so its answer is read after it was asked for. */
  key?: (item: I) => string;
  /** An item's share of `maxWeight` and `maxPendingWeight` (1 by default). */
  weight?: (item: I) => number;
  /** Most weight one batch takes (the first item always goes, whatever its weight). */
  maxWeight?: number;
  /** Weight waiting beyond which new items are refused with `overloaded()`: back-pressure when the database is slow. */
  maxPendingWeight?: number;
  overloaded?: () => Error;
  /** The error new items get once `close()` was called. */
  closed?: () => Error;
  /** Whether a failed batch of several items is retried item by item, so one bad item fails only its own
   * caller (false for failures that would fail every item alike, such as the database being away). */
  retryAlone?: (err: unknown) => boolean;
}

export interface Batcher<I, O> {
  submit(item: I): Promise<O>;
  /** Items waiting and not yet sent, by weight. */
  pendingWeight(): number;
  /** Refuses new items and resolves once every item already submitted has its answer. */
  close(): Promise<void>;
}

interface Waiting<I, O> {
  item: I;
  weight: number;
  promise: Promise<O>;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

export function createBatcher<I, O>(options: BatcherOptions<I, O>): Batcher<I, O> {
  const groupOf = options.group ?? (() => '');
  const weightOf = options.weight ?? (() => 1);
  const maxWeight = options.maxWeight ?? Infinity;
  // Insertion-ordered: groups are served in the order they first had items, items in arrival order.
  const queues = new Map<string, Map<string | Waiting<I, O>, Waiting<I, O>>>();
  let pending = 0;
  let inFlight = 0;
  let scheduled = false;
  let closed = false;
  let drained: (() => void) | undefined;

  const schedule = () => {
    if (inFlight >= options.maxInFlight || pending === 0) return;
    if (options.gather === 'none') return flush();
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      flush();
    });
  };

  const flush = () => {
    for (const [group, queue] of queues) {
      while (queue.size > 0 && inFlight < options.maxInFlight) {
        const batch: Waiting<I, O>[] = [];
        let weight = 0;
        for (const [k, w] of queue) {
          if (batch.length >= options.maxBatch || (batch.length > 0 && weight + w.weight > maxWeight)) break;
          queue.delete(k);
          batch.push(w);
          weight += w.weight;
        }
        pending -= weight;
        inFlight++;
        void runBatch(batch, group).finally(() => {
          inFlight--;
          schedule();
          if (inFlight === 0 && pending === 0) drained?.();
        });
      }
      if (queue.size === 0) queues.delete(group);
    }
  };

  const runBatch = async (batch: Waiting<I, O>[], group: string) => {
    try {
      const results = await options.run(
        batch.map((w) => w.item),
        group,
      );
      for (const [i, w] of batch.entries()) w.resolve(results[i] as O);
    } catch (err) {
      if (batch.length === 1 || !options.retryAlone?.(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      for (const w of batch) {
        try {
          w.resolve((await options.run([w.item], group))[0] as O);
        } catch (single) {
          w.reject(single);
        }
      }
    }
  };

  return {
    submit(item) {
      if (closed) return Promise.reject(options.closed?.() ?? new Error('the batcher is closed'));
      const group = groupOf(item);
      let queue = queues.get(group);
      const key = options.key?.(item);
      const same = key === undefined ? undefined : queue?.get(key);
      if (same) return same.promise;
      const weight = weightOf(item);
      if (options.maxPendingWeight !== undefined && pending + weight > options.maxPendingWeight) {
        return Promise.reject(options.overloaded?.() ?? new Error('too many items are waiting'));
      }
      let resolve!: (value: O) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<O>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const waiting: Waiting<I, O> = { item, weight, promise, resolve, reject };
      if (!queue) {
        queue = new Map();
        queues.set(group, queue);
      }
      queue.set(key ?? waiting, waiting);
      pending += weight;
      schedule();
      return promise;
    },
    pendingWeight: () => pending,
    async close() {
      closed = true;
      if (inFlight === 0 && pending === 0) return;
      await new Promise<void>((resolve) => {
        drained = resolve;
      });
    },
  };
}
