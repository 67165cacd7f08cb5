import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { LINK_VISITOR } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import { WidgetParams } from '../dashboards/schemas.ts';
import { sendJson } from '../sql/results.ts';
import { WidgetRunBody, WidgetRunResult } from '../sql/schemas.ts';
import { runWidget, widgetAnswer } from '../sql/widget.ts';
import { sharedDashboard } from './manage.ts';
import { PublicDashboard } from './schemas.ts';
import { publicView } from './view.ts';

const tags = ['sharing'];
/** A link's token: 32 random bytes in base64url. Anything else names no link, and is refused before a lookup. */
const TokenParams = Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }) });

/** What anyone holding a link sees and runs: no sign-in, counted per address. */
export function registerPublicRoutes(app: App, ctx: DashboardContext): void {
  app.get(
    '/api/v1/public/dashboards/:token',
    {
      config: { access: LINK_VISITOR },
      schema: {
        operationId: 'getPublicDashboard',
        tags,
        summary:
          'A shared dashboard for anyone with its link: title, layout, parameters and widgets, without SQL or sources',
        params: TokenParams,
        response: { 200: PublicDashboard, ...errorResponses(400, 404, 429) },
      },
    },
    async (request, reply) => {
      const d = await sharedDashboard(ctx, request.params.token);
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return publicView(d);
    },
  );

  app.post(
    '/api/v1/public/dashboards/:token/widgets/:widgetId/run',
    {
      config: { access: LINK_VISITOR },
      schema: {
        operationId: 'runPublicDashboardWidget',
        tags,
        summary:
          "Run a shared dashboard's widget as stored, with the dashboard's parameter values (anyone with the link)",
        params: Type.Object({ ...TokenParams.properties, widgetId: WidgetParams.properties.widgetId }),
        body: WidgetRunBody,
        response: { 200: WidgetRunResult, ...errorResponses(400, 404, 408, 429, 503) },
      },
    },
    async (request, reply) => {
      const d = await sharedDashboard(ctx, request.params.token);
      reply.header('cache-control', 'no-store');
      const shared = await runWidget(ctx, request, reply, d, request.params.widgetId, request.body ?? {}, true);
      return sendJson(reply, widgetAnswer(shared));
    },
  );
}
