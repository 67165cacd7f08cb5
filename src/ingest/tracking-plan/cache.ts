import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { createSnapshotCache } from '../../kit/snapshot-cache.ts';
import type { CompiledPlan } from './plan.ts';
import { loadTrackingPlans } from './store.ts';

/** The bus channel a changed plan is announced on. */
export const TRACKING_PLANS_CACHE = 'ingest.tracking-plans';

/**
 * The projects' plans that are on, compiled, held in memory as the suppressed users are (erasure/suppressions.ts):
 * read whole at start, again after INGEST_KEY_CACHE_SECONDS, and at once on every instance when a plan is saved. A
 * batch of a project without a plan costs one map lookup.
 */
export interface TrackingPlanCache {
  fresh(): Promise<void>;
  /** The project's plan; undefined when it is off. */
  of(projectId: string): CompiledPlan | undefined;
  changed(projectId: string): void;
}

export function createTrackingPlanCache(deps: {
  db: Queryable;
  bus: InvalidationBus;
  ttlSeconds: number;
  log: FastifyBaseLogger;
}): TrackingPlanCache {
  const cache = createSnapshotCache({
    name: TRACKING_PLANS_CACHE,
    what: 'tracking plans',
    empty: new Map<string, CompiledPlan>(),
    load: () => loadTrackingPlans(deps.db),
    bus: deps.bus,
    ttlSeconds: deps.ttlSeconds,
    log: deps.log,
  });
  return { fresh: cache.fresh, of: (projectId) => cache.current().get(projectId), changed: cache.changed };
}
