import type { Database } from '../../kit/db.ts';
import { createCache, type Cache } from '../../kit/cache.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { findPrincipal, type PrincipalView } from './view.ts';

/**
 * Principals by id, cached for a few seconds because introspection and the token endpoint ask for the same few
 * principals over and over. A change (a deactivated principal) invalidates at once on this instance, and on
 * every instance through the bus when Redis is configured.
 */
export class PrincipalDirectory {
  private readonly cache: Cache<PrincipalView | undefined>;

  constructor(db: Database, ttlMs = 5_000, bus?: InvalidationBus) {
    this.cache = createCache({
      name: 'principals',
      load: (id) => findPrincipal(db, id),
      ttlMs,
      maxEntries: 50_000,
      bus,
    });
  }

  invalidate(id?: string): void {
    this.cache.invalidate(id);
  }

  async find(id: string | undefined): Promise<PrincipalView | undefined> {
    if (!id) return undefined;
    return this.cache.get(id);
  }
}
