import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { createSnapshotCache } from '../../kit/snapshot-cache.ts';
import { loadProjectOrigins } from './origins.ts';

/** The bus channel a change of a project's origins is announced on. */
export const PROJECT_ORIGINS_CACHE = 'ingest.project-origins';

/**
 * The projects' own allowed origins, held in memory for the CORS checks of `/v1/events`: read whole (only projects
 * that list some), again after `ttlSeconds`, and at once on every instance when a change is announced on the bus.
 * A failed read keeps the last snapshot for another time to live, so a database hiccup never blocks a page the list
 * allowed a moment ago (kit/snapshot-cache.ts).
 */
export interface ProjectOriginCache {
  /** Resolves once the snapshot is no older than the time to live (at once when it is). */
  fresh(): Promise<void>;
  /** Whether some project allows the origin (a preflight carries no key). */
  anyAllows(origin: string): boolean;
  /** Whether this project allows the origin. */
  projectAllows(projectId: string, origin: string): boolean;
  /** Announces a change here and on every instance. */
  changed(projectId: string): void;
}

export function createProjectOriginCache(deps: {
  db: Queryable;
  bus: InvalidationBus;
  ttlSeconds: number;
  log: FastifyBaseLogger;
}): ProjectOriginCache {
  const cache = createSnapshotCache({
    name: PROJECT_ORIGINS_CACHE,
    what: 'project origins',
    empty: { byProject: new Map<string, Set<string>>(), any: new Set<string>() },
    load: async () => {
      const byProject = await loadProjectOrigins(deps.db);
      return { byProject, any: new Set([...byProject.values()].flatMap((s) => [...s])) };
    },
    bus: deps.bus,
    ttlSeconds: deps.ttlSeconds,
    log: deps.log,
  });
  return {
    fresh: cache.fresh,
    anyAllows: (origin) => cache.current().any.has(origin.toLowerCase()),
    projectAllows: (projectId, origin) => cache.current().byProject.get(projectId)?.has(origin.toLowerCase()) ?? false,
    changed: cache.changed,
  };
}
