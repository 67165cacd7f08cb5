import { Type } from 'typebox';
import { DEFAULT_RETRY_AFTER_SECONDS, type App } from '../../kit/app.ts';
import { PUBLIC } from '../../kit/access.ts';
import type { Database } from '../../kit/db.ts';
import { queueCounts } from '../jobs/store.ts';

const TIMEOUT_MS = 2_000;

function bounded<T>(work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), TIMEOUT_MS);
  });
  return Promise.race([work.catch(() => null), timeout]).finally(() => clearTimeout(timer));
}

/** `/api/v1/health`: the version and the queue, 503 when the database does not answer (`/health` and `/ready` come from the kit). */
export function registerHealthRoutes(app: App, db: Database, version: string): void {
  const Health = Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    version: Type.String(),
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    queue: Type.Union([Type.Object({ pending: Type.Integer(), running: Type.Integer() }), Type.Null()]),
  });
  app.get(
    '/api/v1/health',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'healthV1',
        summary: 'Service health: version, database, queue',
        tags: ['health'],
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const queue = await bounded(queueCounts(db));
      const body = {
        status: queue ? ('ok' as const) : ('unavailable' as const),
        version,
        database: queue ? ('ok' as const) : ('unavailable' as const),
        queue,
      };
      // Like every 503 of the platform while the database cannot be reached: the caller is told when to retry.
      if (!queue) reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
      return reply.code(queue ? 200 : 503).send(body);
    },
  );
}
