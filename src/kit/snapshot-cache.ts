import type { FastifyBaseLogger } from 'fastify';
import type { InvalidationBus } from './invalidation.ts';

/**
 * A small table held whole in memory for checks on a hot path: read again after `ttlSeconds`, and at once on every
 * instance when a change is announced on the bus. A failed read keeps the last snapshot for another time to live, so
 * a database hiccup never blocks what the last snapshot allowed (or refused) a moment ago, and the database is asked
 * at most once per time to live during an outage rather than on every request.
 */
export interface SnapshotCache<T> {
  /** Resolves once the snapshot is no older than the time to live (at once when it is). */
  fresh(): Promise<void>;
  /** The snapshot as last read (`empty` before the first read). */
  current(): T;
  /** Announces a change here and on every instance. */
  changed(key: string): void;
}

export function createSnapshotCache<T>(deps: {
  /** Its name on the bus. */
  name: string;
  load: () => Promise<T>;
  empty: T;
  bus: InvalidationBus;
  ttlSeconds: number;
  log: FastifyBaseLogger;
  /** Said in the warning of a failed read: `project origins`. */
  what: string;
}): SnapshotCache<T> {
  let snapshot = deps.empty;
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  let generation = 0;
  const load = () => {
    loading ??= (async () => {
      const started = generation;
      try {
        snapshot = await deps.load();
        // An invalidation heard during the read may not be in it: the next request reads again.
        if (started === generation) loadedAt = Date.now();
      } catch (err) {
        // Tried again after the time to live, not on every request of an outage.
        if (started === generation) loadedAt = Date.now();
        deps.log.warn({ err: (err as Error).message }, `${deps.what} could not be read; keeping the last ones`);
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };
  deps.bus.subscribe(deps.name, () => {
    generation++;
    loadedAt = Number.NEGATIVE_INFINITY;
  });
  return {
    fresh: () => (Date.now() - loadedAt < deps.ttlSeconds * 1000 ? Promise.resolve() : load()),
    current: () => snapshot,
    changed: (key) => deps.bus.publish(deps.name, key),
  };
}
