import type { App } from '../../kit/app.ts';
import { errorResponses } from '../../kit/errors.ts';
import { signedIn } from '../auth/access.ts';
import type { DashboardContext } from '../context.ts';
import type { Renderer } from '../render/renderer.ts';
import { IdParams, bearer } from '../schemas.ts';
import { RenderAborted } from '../render/slots.ts';
import { callerGone, downloadPicture } from './download.ts';
import { RenderBody, RenderedFile } from './schemas.ts';

/**
 * A dashboard downloaded as a PNG or a PDF (viewer). A POST, since it carries the parameter values, but not a reading
 * one (`viewerReading`): a render's own credential may not ask for another render.
 */
export function registerDownloadRoutes(app: App, ctx: DashboardContext, renderer: Renderer): void {
  app.post(
    '/api/v1/dashboards/:id/render',
    {
      config: { access: signedIn('viewer') },
      schema: {
        operationId: 'renderDashboard',
        tags: ['dashboards'],
        security: bearer,
        summary:
          'The dashboard as a PNG or PDF file, drawn now as you see it with the given parameter values (viewer); 503 with Retry-After when the instance is drawing as many as it may',
        params: IdParams,
        body: RenderBody,
        response: { 200: RenderedFile, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const signal = callerGone(reply);
      const file = await downloadPicture(ctx, renderer, request, request.params.id, request.body, signal).catch(
        (err: unknown) => {
          if (err instanceof RenderAborted) return undefined;
          throw err;
        },
      );
      // The caller went away, the connection with it: nothing is sent (nor logged as a failure), the socket let go.
      if (!file) {
        reply.hijack();
        reply.raw.destroy();
        return;
      }
      return reply
        .type(file.type)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  );
}
