import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { viewerReading } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { bearer } from '../schemas.ts';
import { sendJson } from '../sql/results.ts';
import { WidgetRunBody, WidgetRunResult } from '../sql/schemas.ts';
import { runWidget, widgetAnswer } from '../sql/widget.ts';
import { WidgetParams } from './schemas.ts';

/**
 * `POST /api/v1/dashboards/:id/widgets/:widgetId/run`: draws a widget of the saved dashboard. Viewers may run it
 * (as they may run saved queries): the SQL is the one an editor stored in the dashboard, and the caller only
 * gives parameter values, which are bound, never spliced. This is how a viewer sees a dashboard's charts
 * without being able to write SQL (`POST /query` stays an editor's route).
 */
export function registerWidgetRunRoute(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/dashboards/:id/widgets/:widgetId/run',
    {
      config: { access: viewerReading() },
      schema: {
        operationId: 'runDashboardWidget',
        tags: ['dashboards'],
        security: bearer,
        summary:
          "Run a widget's query (its SQL or saved query) with the dashboard's parameter values (viewer and above); identical runs at once share one, and the widget's cacheSeconds keeps the rows",
        params: WidgetParams,
        body: WidgetRunBody,
        response: { 200: WidgetRunResult, ...errorResponses(400, 401, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const dashboard = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      const shared = await runWidget(ctx, request, reply, dashboard, request.params.widgetId, request.body ?? {});
      return sendJson(reply, widgetAnswer(shared));
    },
  );
}
