import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { createSnapshotCache } from '../../kit/snapshot-cache.ts';
import { loadSuppressions } from './store.ts';

/** The bus channel a new or lifted suppression is announced on. */
export const SUPPRESSIONS_CACHE = 'ingest.suppressions';

/**
 * The users whose events are dropped on arrival, by project, held in memory as the projects' allowed origins are
 * (kit/snapshot-cache.ts): read whole at start, again after INGEST_KEY_CACHE_SECONDS, and at once on every instance
 * when an erasure suppresses a user or a suppression is lifted (the invalidation bus, Redis when set). So a batch costs
 * one map lookup by its project, and only a project with suppressed users has its events' `user.id`s looked at.
 */
export interface SuppressionCache {
  /** Resolves once the snapshot is no older than the time to live (at once when it is). */
  fresh(): Promise<void>;
  /** The project's suppressed users; undefined when it has none. */
  of(projectId: string): ReadonlySet<string> | undefined;
  /** Announces a change here and on every instance. */
  changed(projectId: string): void;
}

export function createSuppressionCache(deps: {
  db: Queryable;
  bus: InvalidationBus;
  ttlSeconds: number;
  log: FastifyBaseLogger;
}): SuppressionCache {
  const cache = createSnapshotCache({
    name: SUPPRESSIONS_CACHE,
    what: 'suppressed users',
    empty: new Map<string, Set<string>>(),
    load: () => loadSuppressions(deps.db),
    bus: deps.bus,
    ttlSeconds: deps.ttlSeconds,
    log: deps.log,
  });
  return {
    fresh: cache.fresh,
    of: (projectId) => cache.current().get(projectId),
    changed: cache.changed,
  };
}
