import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { bearer } from '../schemas.ts';
import { HistoryItem, HistoryQuery } from './schemas.ts';
import { clearHistory, listHistory, type HistoryRow } from './store.ts';

const tags = ['queries'];

const item = (r: HistoryRow) => ({
  id: r.id,
  dataSourceId: r.data_source_id,
  query: r.query,
  params: r.params,
  rowCount: r.row_count,
  executionTimeMs: r.execution_ms,
  error: r.error,
  ranAt: r.ran_at.toISOString(),
});

/** The caller's own query history (what their SQL editor ran): nobody reads another person's. */
export function registerHistoryRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/query-history',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'listQueryHistory',
        tags,
        security: bearer,
        summary: "The caller's last runs in the SQL editor, newest first",
        querystring: HistoryQuery,
        response: { 200: Type.Object({ items: Type.Array(HistoryItem) }), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => ({ items: (await listHistory(ctx.db, currentUser(request).id, request.query.limit)).map(item) }),
  );

  app.delete(
    '/api/v1/query-history',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'clearQueryHistory',
        tags,
        security: bearer,
        summary: "Forget the caller's query history",
        response: { 204: Type.Null(), ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => {
      await clearHistory(ctx.db, currentUser(request).id);
      return reply.code(204).send(null);
    },
  );
}
