import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';

const READY_TIMEOUT_MS = 2_000;

/** Liveness answers without touching anything; readiness asks the database, bounded in time so a hung server reads as not ready. */
export function registerHealthRoutes(app: App, db: Database): void {
  app.get('/health', {
    schema: { summary: 'The process is alive', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
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
