import type { BrowserContext, Page } from 'playwright-core';

export type VisitStop = 'timeout' | 'cancelled';

/**
 * A visit's time limit and its cancellation as one promise: 'timeout' once `ms` have passed since `startedAt` (a
 * `performance.now()` reading), 'cancelled' when the signal aborts. A Node timer counts whole milliseconds of a truncated
 * clock, so it can fire up to 1 ms early: a page would be failed "over the limit" having taken 19,999 ms of 20 s (seen
 * in CI). An early timer is re-armed for what is left.
 */
export function visitDeadline(
  ms: number,
  signal?: AbortSignal,
  startedAt = performance.now(),
): { stopped: Promise<VisitStop>; clear(): void } {
  let stop: (reason: VisitStop) => void = () => {};
  const stopped = new Promise<VisitStop>((resolve) => {
    stop = resolve;
  });
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = startedAt + ms - performance.now();
    if (left <= 0) stop('timeout');
    else timer = setTimeout(arm, Math.ceil(left));
  };
  arm();
  const onAbort = () => stop('cancelled');
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    stopped,
    clear() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * A page being opened for a visit. Opening is bounded by the visit's clock too (a browser going away can leave it
 * unanswered), so `close` does not wait for it: a page that opens after its visit was given up is closed when it does.
 */
export function openVisitPage(context: BrowserContext): { page: Promise<Page>; close(): Promise<void> } {
  let opened: Page | undefined;
  const page = context.newPage().then((p) => (opened = p));
  page.catch(() => {});
  return {
    page,
    async close() {
      if (opened) await opened.close().catch(() => {});
      else void page.then((p) => p.close()).catch(() => {});
    },
  };
}
