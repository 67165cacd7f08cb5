import { createCache } from '../cache.ts';
import { int } from '../config.ts';
import { sha256Hex } from '../crypto.ts';
import type { Queryable } from '../db.ts';
import type { InvalidationBus } from '../invalidation.ts';
import type { ApiKeyHolder, ApiKeyRecord, ApiKeyTable, KeyRevoked } from './table.ts';

/** The key cache's name on a service's invalidation bus; a command revoking a key announces it under this name. */
export const API_KEY_CACHE = 'api-keys';

export interface ApiKeyLookup {
  /** The holder of a live key, or undefined for an unknown or revoked one. Throws when the database cannot answer. */
  find(key: string): Promise<ApiKeyHolder | undefined>;
  /** What a revocation made by this instance tells: the key's cached lookup goes here and, through the bus, everywhere. */
  revoked: KeyRevoked;
}

/** The variable saying how long a service's instances keep a live key's lookup. */
export const apiKeyCacheVariableName = (service: string) => `${service.toUpperCase()}_KEY_CACHE_SECONDS`;

export function apiKeyCacheVariable(service: string, defaultSeconds: number) {
  return int(apiKeyCacheVariableName(service), {
    default: defaultSeconds,
    min: 0,
    max: 300,
    doc: `How long a valid API key lookup is cached in memory. A key revoked through another instance or \`platform ${service} keys revoke\` stops working within this many seconds, or at once with REDIS_URL; \`0\` looks every key up on every request.`,
  });
}

/**
 * Live keys are cached by their SHA-256 for `ttlSeconds`, so a busy client costs one lookup per interval, not per
 * request. Unknown keys are not cached: a key created a moment ago by another process works on its first use.
 * Concurrent lookups of one key share a query. A revocation drops the key on every instance sharing `bus`.
 */
export function createApiKeyLookup(options: {
  db: Queryable;
  table: ApiKeyTable<ApiKeyRecord>;
  ttlSeconds: number;
  bus?: InvalidationBus | undefined;
}): ApiKeyLookup {
  const cache = createCache<ApiKeyHolder | undefined>({
    name: API_KEY_CACHE,
    load: (hash) => options.table.holderOf(options.db, hash),
    keep: (holder) => holder !== undefined,
    ttlMs: options.ttlSeconds * 1000,
    maxEntries: 10_000,
    bus: options.bus,
  });
  return {
    find: (key) => cache.get(sha256Hex(key)),
    revoked: async (hash) => cache.invalidate(hash),
  };
}
