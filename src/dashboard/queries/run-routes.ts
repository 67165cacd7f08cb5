import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { withHistory } from '../history/record.ts';
import { dataSourceOf } from '../lookup.ts';
import { IdParams, bearer } from '../schemas.ts';
import { clientGoneSignal } from '../sql/client-gone.ts';
import { DEFAULT_MAX_ROWS } from '../sql/execute.ts';
import { namedColumnsResult, sendJson } from '../sql/results.ts';
import { runAdHoc, runSaved } from '../sql/run.ts';
import { QueryResult, StoredRunBody } from '../sql/schemas.ts';
import { AdHocQueryBody } from './schemas.ts';

const tags = ['queries'];

/** Ad-hoc SQL (editors, within the source's sqlRole) and saved queries run with parameter values (viewers). */
export function registerQueryRunRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/query',
    {
      config: { access: signedIn('editor') },
      schema: {
        operationId: 'runQuery',
        tags,
        security: bearer,
        summary: 'Run ad-hoc SQL on a data source (editor)',
        body: AdHocQueryBody,
        response: { 200: QueryResult, ...errorResponses(400, 401, 403, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const { dataSourceId, query, params = {}, maxRows, history } = request.body;
      const row = await dataSourceOf(ctx.db, currentUser(request).tenantId, dataSourceId);
      const signal = clientGoneSignal(reply);
      const parameters = params as Record<string, unknown>;
      const options = { query, parameters, maxRows, signal };
      const run = () => runAdHoc(ctx, request, row, options);
      const result = history
        ? await withHistory(ctx.db, request, { dataSourceId, query, params: parameters }, run)
        : await run();
      return sendJson(reply, namedColumnsResult(result));
    },
  );

  app.post(
    '/api/v1/queries/:id/run',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'runSavedQuery',
        tags,
        security: bearer,
        summary: 'Run a saved query with parameter values (viewer and above)',
        params: IdParams,
        body: StoredRunBody,
        response: { 200: QueryResult, ...errorResponses(400, 401, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const { params = {}, maxRows = DEFAULT_MAX_ROWS } = request.body ?? {};
      const signal = clientGoneSignal(reply);
      const options = { parameters: params as Record<string, unknown>, maxRows, signal };
      const result = await runSaved(ctx, request, request.params.id, options);
      return sendJson(reply, namedColumnsResult(result));
    },
  );
}
