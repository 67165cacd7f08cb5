import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { ExecuteResult } from '../sql/execute.ts';
import { addHistory } from './store.ts';

/**
 * Runs `run` and keeps it in the caller's history, succeeded or failed (the error's code only). The history is the
 * person's own, so the values are kept to open the run again; a failure to write it never fails the run.
 */
export async function withHistory(
  db: Database,
  request: FastifyRequest,
  entry: { dataSourceId: number; query: string; params: Record<string, unknown> },
  run: () => Promise<ExecuteResult>,
): Promise<ExecuteResult> {
  const me = currentUser(request);
  const add = (outcome: { rowCount: number | null; executionMs: number | null; error: string | null }) =>
    addHistory(db, { tenantId: me.tenantId, userId: me.id, ...entry, ...outcome }).catch((err) =>
      request.log.warn({ err }, 'the query history could not be written'),
    );
  try {
    const result = await run();
    await add({ rowCount: result.rowCount, executionMs: result.executionTimeMs, error: null });
    return result;
  } catch (err) {
    await add({ rowCount: null, executionMs: null, error: err instanceof HttpError ? err.code : 'INTERNAL_ERROR' });
    throw err;
  }
}
