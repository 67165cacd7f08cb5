import type { Database } from '../../kit/db.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { projectOfKeyHash } from './store.ts';

const MAX_CACHED = 10_000;

export interface KeyResolver {
  /** The project of a live key, or undefined for an unknown or revoked one. Throws when the database cannot answer. */
  projectOf(key: string): Promise<string | undefined>;
  /** Drops cached lookups so a key revoked in this process stops working at once. */
  forget(): void;
}

/**
 * Live keys are cached for `ttlSeconds` so a busy client costs one lookup per interval, not per request.
 * Unknown keys are not cached: a key created a moment ago by another process works on its first use.
 * Concurrent lookups of one key share a query.
 */
export function createKeyResolver(db: Database, ttlSeconds: number): KeyResolver {
  const cache = new Map<string, { projectId: string; expires: number }>();
  const inFlight = new Map<string, Promise<string | undefined>>();
  // A lookup that began before a revocation must not put the revoked key back into the cache.
  let generation = 0;
  return {
    async projectOf(key) {
      const hash = sha256Hex(key);
      const hit = cache.get(hash);
      if (hit && hit.expires > Date.now()) return hit.projectId;
      const pending = inFlight.get(hash);
      if (pending) return pending;
      const startedIn = generation;
      const lookup = projectOfKeyHash(db, hash).then((projectId) => {
        if (projectId && ttlSeconds > 0 && startedIn === generation) {
          if (cache.size >= MAX_CACHED) cache.clear();
          cache.set(hash, { projectId, expires: Date.now() + ttlSeconds * 1000 });
        } else {
          cache.delete(hash);
        }
        return projectId;
      }).finally(() => inFlight.delete(hash));
      inFlight.set(hash, lookup);
      return lookup;
    },
    forget() {
      generation++;
      cache.clear();
      inFlight.clear();
    },
  };
}
