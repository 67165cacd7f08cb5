import { localInvalidationBus, type InvalidationBus } from './invalidation.ts';

export interface CacheOptions<V> {
  /** Names the cache on the invalidation bus: unique within the service. */
  name: string;
  /** Reads the value from the source (the database) on a miss. */
  load(key: string): Promise<V>;
  /** How long a loaded value is served before it is read again; 0 reads every time. */
  ttlMs: number;
  /** Entries kept at most; past it the cache starts over (simple, and a full cache is a sign of a scan). */
  maxEntries: number;
  /** Whether a loaded value is kept (for example not "unknown", so a key created a moment ago elsewhere works at once). */
  keep?: (value: V) => boolean;
  /** Carries invalidations to every instance; this process only by default. */
  bus?: InvalidationBus;
}

export interface Cache<V> {
  get(key: string): Promise<V>;
  /** Drops `key` (or everything) here and, through the bus, on every instance. */
  invalidate(key?: string): void;
}

/**
 * A read-through cache with a short expiry and invalidation. Concurrent misses of one key share one
 * load. A load that began before an invalidation of its key does not put its (possibly stale) value
 * back: what was revoked stays revoked from the moment the invalidation arrives.
 */
export function createCache<V>(options: CacheOptions<V>): Cache<V> {
  const entries = new Map<string, { value: V; expires: number }>();
  const loading = new Map<string, Promise<V>>();
  // Bumped by every invalidation; a load stores its value only if no invalidation came while it ran.
  let generation = 0;
  const bus = options.bus ?? localInvalidationBus();

  const drop = (key: string | undefined) => {
    generation++;
    if (key === undefined) {
      entries.clear();
      loading.clear();
    } else {
      entries.delete(key);
      loading.delete(key);
    }
  };
  bus.subscribe(options.name, drop);

  return {
    get(key) {
      const hit = entries.get(key);
      if (hit && hit.expires > Date.now()) return Promise.resolve(hit.value);
      const pending = loading.get(key);
      if (pending) return pending;
      const startedIn = generation;
      const load = options
        .load(key)
        .then((value) => {
          if (options.ttlMs > 0 && startedIn === generation && (options.keep?.(value) ?? true)) {
            if (entries.size >= options.maxEntries) entries.clear();
            entries.set(key, { value, expires: Date.now() + options.ttlMs });
          } else {
            entries.delete(key);
          }
          return value;
        })
        .finally(() => {
          if (loading.get(key) === load) loading.delete(key);
        });
      loading.set(key, load);
      return load;
    },
    invalidate(key) {
      bus.publish(options.name, key);
    },
  };
}
