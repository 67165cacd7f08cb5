import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
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

/** `/api/v1/health`: the version and the queue, 503 when the database does not answer; `/ready` likewise for orchestrators. */
export function registerHealthRoutes(app: App, db: Database, version: string): void {
  const Health = Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    version: Type.String(),
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    queue: Type.Union([Type.Object({ pending: Type.Integer(), running: Type.Integer() }), Type.Null()]),
  });
  app.get('/api/v1/health', {
    schema: { operationId: 'health', summary: 'Service health: version, database, queue', tags: ['health'], response: { 200: Health, 503: Health } },
  }, async (_request, reply) => {
    const queue = await bounded(queueCounts(db));
    const body = { status: queue ? 'ok' as const : 'unavailable' as const, version, database: queue ? 'ok' as const : 'unavailable' as const, queue };
    return reply.code(queue ? 200 : 503).send(body);
  });
  app.get('/ready', {
    schema: {
      operationId: 'ready',
      summary: 'The database answers',
      tags: ['health'],
      response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: Type.Object({ status: Type.Literal('not ready') }) },
    },
  }, async (_request, reply) => {
    if (await bounded(db.query('SELECT 1'))) return { status: 'ready' as const };
    return reply.code(503).send({ status: 'not ready' as const });
  });
}
