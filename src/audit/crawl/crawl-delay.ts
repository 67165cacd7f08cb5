/** Longest Crawl-delay honoured: a site asking for more still gets pages 30 s apart, so one job cannot sit for hours. */
export const MAX_CRAWL_DELAY_SECONDS = 30;

/** A Crawl-delay value as sites write it: a non-negative decimal number of seconds, `10` or `0.5`. */
const PLAIN_DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;

/**
 * robots.txt with every Crawl-delay whose value is not a plain decimal (digits, optionally one fractional part)
 * made unreadable, for robots-parser, which reads values with Number() and so takes `0x10` for 16 s and `1e1`
 * for 10 s. Lines are split, comments cut and fields trimmed as robots-parser does, so the value checked is the
 * one it would read; the line stays a Crawl-delay line (now one it reads as not a number, as it does `soon`) and
 * keeps its place, so the groups, their rules and their line numbers are the library's as before.
 */
export function withStrictCrawlDelays(robotsTxt: string): string {
  return robotsTxt
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const content = line.split('#', 1)[0]!;
      const colon = content.indexOf(':');
      if (colon < 0 || content.slice(0, colon).trim().toLowerCase() !== 'crawl-delay') return line;
      return PLAIN_DECIMAL.test(content.slice(colon + 1).trim()) ? line : 'Crawl-delay: malformed';
    })
    .join('\n');
}

/**
 * The spacing in milliseconds between the starts of a crawl's pages, from robots.txt's Crawl-delay (seconds, as
 * robots-parser reads it from withStrictCrawlDelays' text: a number, or undefined when absent or malformed).
 * Zero, negative or non-finite values mean no delay, as a site that states none.
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
