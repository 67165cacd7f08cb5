import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { slugify } from '../../../web/dashboard/src/app/slug.ts';
import { HttpError } from '../../kit/errors.ts';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { validation } from '../errors.ts';
import { dashboardFor } from '../lookup.ts';
import type { PictureFormat } from '../render/picture.ts';
import { RenderTimeout } from '../render/render.ts';
import type { Renderer } from '../render/renderer.ts';
import { RenderAborted, RenderBusy } from '../render/slots.ts';
import { checkPictureValues } from '../render/values.ts';
import { isTimeZone } from '../subscriptions/schedule.ts';
import type { RenderBody } from './schemas.ts';

/** Seconds a refused download is told to wait: a usual dashboard's picture draws in a few seconds. */
const RETRY_AFTER_SECONDS = 5;

const TYPES: Record<PictureFormat, string> = { png: 'image/png', pdf: 'application/pdf' };

export interface Download {
  body: Buffer;
  type: string;
  filename: string;
}

/**
 * A person's PNG or PDF of a dashboard (Metabase's "Export as PDF", Grafana's image renderer): checked as a
 * subscription's values are, drawn now with the caller's own rights by a read-only credential of theirs (revoked once
 * drawn), and recorded in the tenant's audit log, drawn or not. A busy instance or a render past its time is 503 in
 * the platform's error shape, never a hang. A caller who goes away (`signal`, callerGone) takes the download out of
 * the queue or stops its render, freeing the slot for the next: RenderAborted is thrown, nobody being there to answer.
 */
export async function downloadPicture(
  ctx: Pick<DashboardContext, 'db'>,
  renderer: Renderer,
  request: FastifyRequest,
  id: number,
  body: Static<typeof RenderBody>,
  signal?: AbortSignal,
): Promise<Download> {
  const me = currentUser(request);
  const dashboard = await dashboardFor(ctx.db, me, id);
  const parameters = body.parameters ?? {};
  checkPictureValues(dashboard, parameters);
  const timezone = body.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw validation(`timezone: "${timezone}" is not an IANA time zone such as Europe/Paris`);
  const record = (details: Record<string, unknown>) =>
    recordAudit(
      ctx.db,
      {
        ...actor(request),
        action: 'dashboard.render',
        targetType: 'dashboard',
        targetId: dashboard.id,
        details: { format: body.format, parameters, ...details },
      },
      { flushWait: false },
    );
  const started = Date.now();
  let file: Buffer;
  try {
    file = await renderer.draw(
      me,
      { dashboardId: dashboard.id, parameters, timezone },
      { format: body.format, purpose: 'download', signal },
    );
  } catch (err) {
    if (err instanceof RenderAborted) {
      await record({ outcome: 'aborted' });
      throw err;
    }
    if (err instanceof RenderBusy)
      throw new HttpError(503, 'UNAVAILABLE', err.message, {
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    const why = (err as Error).message.split('\n')[0]!;
    const timedOut = err instanceof RenderTimeout;
    await record({ outcome: timedOut ? 'timeout' : 'failed', error: why });
    throw new HttpError(503, 'UNAVAILABLE', timedOut ? why : `the picture could not be drawn: ${why}`);
  }
  await record({ outcome: 'ok', bytes: file.length, ms: Date.now() - started });
  return { body: file, type: TYPES[body.format], filename: fileName(dashboard, body.format, timezone) };
}

/**
 * Aborts when the caller closes the connection before the answer is sent. Not `request.signal`: Fastify aborts it on
 * the request's `close`, which Node emits as soon as a POST's body has been read, the client still waiting; the
 * response's `close` before it finished is the connection going away.
 */
export function callerGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** `<title as letters, digits and hyphens>-<date in the picture's zone>.<format>`, as the console names a CSV. */
function fileName(dashboard: DashboardRow, format: PictureFormat, timezone: string): string {
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, dateStyle: 'short' }).format(new Date());
  return `${slugify(dashboard.title, dashboard.slug, 80)}-${date}.${format}`;
}
