import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../kit/browser.ts';
import type { Database } from '../../kit/db.ts';
import type { JwtKeys } from '../auth/jwt.ts';
import type { AuthUser, RenderPurpose } from '../auth/user.ts';
import { renderCredential } from './credential.ts';
import { openPicture, shoot, type PictureFormat, type PictureOf } from './picture.ts';
import { RenderAborted } from './slots.ts';

/** What every render needs, whoever asks for it (a subscription's send, a download). */
export interface RenderDeps {
  db: Database;
  keys: JwtKeys;
  /** Where the browser opens the dashboard page (the service itself): DASHBOARD_RENDER_URL, else the public URL. */
  baseUrl: string;
  /** How long a render may take, from the credential to the file (DASHBOARD_RENDER_TIMEOUT, in milliseconds). */
  timeoutMs: number;
}

/** A render that took longer than its time: the browser is closed and the credential revoked. */
export class RenderTimeout extends Error {
  constructor(seconds: number) {
    super(`the picture took longer than ${seconds} s to draw (a widget's query may be slow)`);
    this.name = 'RenderTimeout';
  }
}

/**
 * The dashboard's picture (openPicture) as `format`, drawn by a browser of its own for `user`, with a read-only
 * credential of `user`'s made for this render and revoked after it, whatever happened. The whole render, from the
 * browser's start to the file, ends within `deps.timeoutMs`: past it the browser is closed, which ends every wait in
 * it, and RenderTimeout is thrown. `signal` (a download's caller gone) ends it the same way at once, with RenderAborted.
 */
export async function renderDashboard(
  deps: RenderDeps,
  user: AuthUser,
  picture: PictureOf,
  options: { format: PictureFormat; purpose: RenderPurpose; signal?: AbortSignal | undefined },
): Promise<Buffer> {
  const { signal } = options;
  if (signal?.aborted) throw new RenderAborted();
  // The credential outlives the longest render by a minute, and is revoked as soon as the render ends anyway.
  const ttl = Math.ceil(deps.timeoutMs / 1000) + 60;
  const credential = await renderCredential(deps.db, deps.keys, user, options.purpose, ttl);
  const held: { browser?: Browser; over?: boolean } = {};
  const work = (async () => {
    const browser = await chromium.launch({
      executablePath: await findChromium(),
      args: CHROMIUM_ARGS,
      headless: true,
    });
    held.browser = browser;
    // A browser that finished starting after the deadline is closed here, the render being over.
    if (held.over) await browser.close();
    const page = await openPicture(browser, deps.baseUrl, credential.pair, picture, deps.timeoutMs);
    return shoot(page, options.format);
  })();
  // After the deadline the closed browser fails whatever was waiting in it: that failure is the timeout's, not news.
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RenderTimeout(deps.timeoutMs / 1000)), deps.timeoutMs);
  });
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new RenderAborted());
    // Aborted while the credential was made: the listener would never hear it.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, deadline, abandoned]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    held.over = true;
    await held.browser?.close().catch(() => {});
    await credential.revoke();
  }
}
