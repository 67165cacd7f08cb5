import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { viewerReading } from '../auth/access.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { dashboardFor } from '../lookup.ts';
import { bearer, IdParams } from '../schemas.ts';
import { parameterOptions } from '../sql/parameter-options.ts';
import { Parameters } from '../sql/schemas.ts';

const ParameterParams = Type.Object({
  ...IdParams.properties,
  name: Type.String({ minLength: 1, maxLength: 60, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
});

/** `POST /dashboards/:id/parameters/:name/options`: a query parameter's choices, given the values of those before it. */
export function registerParameterRoutes(app: App, ctx: DashboardContext): void {
  app.post(
    '/api/v1/dashboards/:id/parameters/:name/options',
    {
      config: { access: viewerReading() },
      schema: {
        operationId: 'dashboardParameterOptions',
        tags: ['dashboards'],
        security: bearer,
        summary:
          "A query parameter's choices: its stored SQL run with the values of the parameters before it (viewer and above)",
        params: ParameterParams,
        body: Type.Object({ params: Type.Optional(Parameters) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            options: Type.Array(Type.String()),
            truncated: Type.Boolean({ description: 'more than 1,000 rows: the choices stop there' }),
          }),
          ...errorResponses(400, 401, 404, 408, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const dashboard = await dashboardFor(ctx.db, currentUser(request), request.params.id);
      const values = (request.body?.params ?? {}) as Record<string, unknown>;
      return parameterOptions(ctx, request, reply, dashboard, request.params.name, values);
    },
  );
}
