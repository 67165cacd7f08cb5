import { Type } from 'typebox';
import type { Registry } from 'prom-client';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';

const READY_TIMEOUT_MS = 2_000;

/** `/health` (Document 1: `{status}`, no authentication) and `/ready` (the database answers); the kit serves `/metrics`. */
export function registerHealthRoutes(app: App, db: Database, registry: Registry): void {
  const open = { auth: false, rateLimit: false } as const;
  app.get('/health', {
    config: open,
    schema: { operationId: 'health', summary: 'The process is alive', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    config: open,
    schema: {
      operationId: 'ready',
      summary: 'The database answers',
      response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: Type.Object({ status: Type.Literal('not ready') }) },
    },
  }, async (_request, reply) => {
    if (await databaseAnswers(db)) return { status: 'ready' as const };
    return reply.code(503).send({ status: 'not ready' as const });
  });
}

async function databaseAnswers(db: Database): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([db.query('SELECT 1').then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
