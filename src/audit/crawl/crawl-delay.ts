/** Longest Crawl-delay honoured: a site asking for more still gets pages 30 s apart, so one job cannot sit for hours. */
export const MAX_CRAWL_DELAY_SECONDS = 30;

/**
 * The spacing in milliseconds between the starts of a crawl's pages, from robots.txt's Crawl-delay (seconds, as
 * robots-parser reads it: a number, or undefined when absent or not a number). Zero, negative or non-finite
 * values mean no delay, as a site that states none.
 */
export function crawlDelayMs(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.round(Math.min(seconds, MAX_CRAWL_DELAY_SECONDS) * 1000);
}

/**
 * A wait of `ms` that the audit's signal ends early; `cancel` clears the timer and the listener when the crawl
 * moves on for another reason (a page finished), so a long crawl does not pile up timers or abort listeners.
 */
export function crawlPause(ms: number, signal?: AbortSignal): { done: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    timer = setTimeout(finish, Math.max(0, ms));
    signal?.addEventListener('abort', finish, { once: true });
  });
  return { done, cancel: finish };
}
