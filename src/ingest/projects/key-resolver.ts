import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { createCache } from '../../kit/cache.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { projectOfKeyHash } from './store.ts';

export interface KeyResolver {
  /** The project of a live key, or undefined for an unknown or revoked one. Throws when the database cannot answer. */
  projectOf(key: string): Promise<string | undefined>;
  /** Drops cached lookups so a revoked key stops working at once: here, and on every instance through the bus. */
  forget(): void;
}

/**
 * Live keys are cached for `ttlSeconds` so a busy client costs one lookup per interval, not per request.
 * Unknown keys are not cached: a key created a moment ago by another process works on its first use.
 * Concurrent lookups of one key share a query.
 */
export function createKeyResolver(db: Database, ttlSeconds: number, bus?: InvalidationBus): KeyResolver {
  const cache = createCache<string | undefined>({
    name: 'api-keys',
    load: (hash) => projectOfKeyHash(db, hash),
    keep: (projectId) => projectId !== undefined,
    ttlMs: ttlSeconds * 1000,
    maxEntries: 10_000,
    bus,
  });
  return {
    projectOf: (key) => cache.get(sha256Hex(key)),
    forget: () => cache.invalidate(),
  };
}
