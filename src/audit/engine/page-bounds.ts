import type { BrowserContext, Page } from 'playwright-core';

export type VisitStop = 'timeout' | 'cancelled';

/** A visit's time limit and its cancellation as one promise: 'timeout' after `ms`, 'cancelled' when the signal aborts. */
export function visitDeadline(ms: number, signal?: AbortSignal): { stopped: Promise<VisitStop>; clear(): void } {
  let stop: (reason: VisitStop) => void = () => {};
  const stopped = new Promise<VisitStop>((resolve) => {
    stop = resolve;
  });
  const timer = setTimeout(() => stop('timeout'), ms);
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
