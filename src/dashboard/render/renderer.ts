import type { Registry } from 'prom-client';
import type { AuthUser, RenderPurpose } from '../auth/user.ts';
import { dashboardPublicUrl } from '../config.ts';
import type { DashboardContext } from '../context.ts';
import type { PictureFormat, PictureOf } from './picture.ts';
import { renderDashboard } from './render.ts';
import { RenderSlots } from './slots.ts';

/** The instance's one way to draw a dashboard's picture, shared by subscriptions and downloads. */
export interface Renderer {
  /**
   * The picture as `format`, drawn for `user` with their rights in one of the instance's slots. A download waits in
   * the short queue or is refused (RenderBusy); a subscription's send waits for a slot whatever the queue holds, since
   * the scheduler sends them one at a time and a refusal would mail no picture. A render that takes too long throws
   * RenderTimeout. `signal` aborted (the caller gone) takes a waiting render out of the queue and stops a running one
   * (its browser closed, its credential revoked, its slot freed): RenderAborted.
   */
  draw(
    user: AuthUser,
    picture: PictureOf,
    options: { format: PictureFormat; purpose: RenderPurpose; signal?: AbortSignal | undefined },
  ): Promise<Buffer>;
  /** DASHBOARD_RENDER_TIMEOUT, in seconds. */
  readonly timeoutSeconds: number;
  readonly slots: RenderSlots;
}

export function createRenderer(ctx: DashboardContext, metrics?: Registry): Renderer {
  const { config } = ctx;
  const deps = {
    db: ctx.db,
    keys: ctx.tokens.keys,
    baseUrl: (config.renderUrl ?? dashboardPublicUrl(config)).replace(/\/+$/, ''),
    timeoutMs: config.renderTimeout * 1000,
  };
  const slots = new RenderSlots({ concurrency: config.renderConcurrency, queue: config.renderQueue, metrics });
  return {
    timeoutSeconds: config.renderTimeout,
    slots,
    draw: (user, picture, options) =>
      slots.run(() => renderDashboard(deps, user, picture, options), {
        patient: options.purpose === 'subscription',
        signal: options.signal,
      }),
  };
}
