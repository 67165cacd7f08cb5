import type { Database } from '../../kit/db.ts';
import { findPrincipal, type PrincipalView } from './view.ts';

/**
 * Principals by id, cached for a few seconds because introspection and the token endpoint ask for the same few
 * principals over and over. A change made through this process invalidates at once.
 */
export class PrincipalDirectory {
  private readonly db: Database;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { view: PrincipalView | undefined; at: number }>();

  constructor(db: Database, ttlMs = 5_000) {
    this.db = db;
    this.ttlMs = ttlMs;
  }

  invalidate(id?: string): void {
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }

  async find(id: string | undefined): Promise<PrincipalView | undefined> {
    if (!id) return undefined;
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.view;
    const view = await findPrincipal(this.db, id);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(id, { view, at: Date.now() });
    return view;
  }
}
