import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { loadProjectOrigins } from './origins.ts';

/** The bus channel a change of a project's origins is announced on. */
export const PROJECT_ORIGINS_CACHE = 'ingest.project-origins';

/**
 * The projects' own allowed origins, held in memory for the CORS checks of `/v1/events`: read whole (only projects
 * that list some), again after `ttlSeconds`, and at once on every instance when a change is announced on the bus.
 * A failed read keeps the last snapshot for another time to live, so a database hiccup never blocks a page the list
 * allowed a moment ago.
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
  let byProject = new Map<string, Set<string>>();
  let any = new Set<string>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  let generation = 0;
  const load = () => {
    loading ??= (async () => {
      const started = generation;
      try {
        const next = await loadProjectOrigins(deps.db);
        byProject = next;
        any = new Set([...next.values()].flatMap((s) => [...s]));
        // An invalidation heard during the read may not be in it: the next request reads again.
        if (started === generation) loadedAt = Date.now();
      } catch (err) {
        // Tried again after the time to live, not on every request of an outage.
        if (started === generation) loadedAt = Date.now();
        deps.log.warn({ err: (err as Error).message }, 'project origins could not be read; keeping the last ones');
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };
  deps.bus.subscribe(PROJECT_ORIGINS_CACHE, () => {
    generation++;
    loadedAt = Number.NEGATIVE_INFINITY;
  });
  return {
    fresh: () => (Date.now() - loadedAt < deps.ttlSeconds * 1000 ? Promise.resolve() : load()),
    anyAllows: (origin) => any.has(origin.toLowerCase()),
    projectAllows: (projectId, origin) => byProject.get(projectId)?.has(origin.toLowerCase()) ?? false,
    changed: (projectId) => deps.bus.publish(PROJECT_ORIGINS_CACHE, projectId),
  };
}
