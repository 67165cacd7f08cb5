import { AuditCancelledError, AuditFailedError } from '../engine/audit-errors.ts';
import type { PageVisit } from '../engine/page-audit.ts';
import { crawlPause } from './crawl-delay.ts';
import type { SiteCrawl } from './site-crawl.ts';
import { takeVisit, type Visit } from './take-visit.ts';

export interface PoolOptions {
  /** Pages loading or being checked at once. */
  concurrency: number;
  visit: (url: string) => Promise<PageVisit>;
  /** False once the browser has gone: the crawl then fails (retryable) instead of failing every page left. */
  browserConnected: () => boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Visits the crawl's found pages until none is left or `maxPages` are recorded. A pool, not waves: a new page
 * starts as soon as one finishes, so one slow page does not hold the others' slots idle. Visits are taken in
 * frontier order whatever order they finish in, so pages, links followed and the pages counted against maxPages
 * are those of a plain breadth-first crawl. A visit that throws fails the crawl.
 */
export async function crawlPages(crawl: SiteCrawl, options: PoolOptions): Promise<void> {
  await new PagePool(crawl, options).run();
}

class PagePool {
  readonly #crawl: SiteCrawl;
  readonly #options: PoolOptions;
  /** Finished visits not yet taken, by frontier index. */
  readonly #visits = new Map<number, Visit>();
  readonly #inFlight = new Map<number, Promise<void>>();
  #failure: unknown = null;
  #launched = 0;
  #taken = 0;
  /**
   * robots.txt's Crawl-delay spaces the starts of pages (requests the crawler chooses to make); pages already
   * loading may overlap. The current rules' delay counts from the last start, so a move to another site's rules
   * applies at once.
   */
  #lastStartAt = Number.NEGATIVE_INFINITY;

  constructor(crawl: SiteCrawl, options: PoolOptions) {
    this.#crawl = crawl;
    this.#options = options;
  }

  async run(): Promise<void> {
    for (;;) {
      this.#launch();
      await this.#takeInOrder();
      if (this.#failure) throw this.#failure;
      if (this.#finished()) return;
      await this.#waitForProgress();
      if (this.#options.signal?.aborted) throw new AuditCancelledError();
      if (this.#failure) throw this.#failure;
      if (!this.#options.browserConnected()) throw new AuditFailedError('the browser stopped during the audit', true);
    }
  }

  /** Starts found pages while slots are free; pages started but not yet taken may all count, so never more than maxPages of them. */
  #launch(): void {
    const crawl = this.#crawl;
    while (
      this.#launched < crawl.frontier.length &&
      this.#inFlight.size < this.#options.concurrency &&
      crawl.pages.length + (this.#launched - this.#taken) < crawl.maxPages
    ) {
      const index = this.#launched;
      const target = crawl.frontier.at(index);
      // Named canonical by a page already recorded: visiting it could only find that page again.
      if (crawl.same.knows(target.url)) this.#settle(index, 'known');
      else if (!crawl.allows(target)) this.#settle(index, 'skipped');
      else if (Date.now() < this.#nextStartAt()) return;
      else this.#start(index, target.url);
    }
  }

  /** A found URL that needs no visit. */
  #settle(index: number, visit: 'known' | 'skipped'): void {
    this.#launched++;
    this.#visits.set(index, visit);
  }

  #start(index: number, url: string): void {
    this.#launched++;
    this.#lastStartAt = Date.now();
    const done = this.#options
      .visit(url)
      .then(
        (visit) => void this.#visits.set(index, visit),
        (err: unknown) => {
          this.#failure ??= err;
        },
      )
      .finally(() => this.#inFlight.delete(index));
    this.#inFlight.set(index, done);
  }

  async #takeInOrder(): Promise<void> {
    while (this.#visits.has(this.#taken)) {
      const visit = this.#visits.get(this.#taken)!;
      const target = this.#crawl.frontier.at(this.#taken);
      this.#visits.delete(this.#taken);
      this.#taken++;
      await takeVisit(this.#crawl, target, visit);
    }
  }

  #finished(): boolean {
    const crawl = this.#crawl;
    return (
      this.#inFlight.size === 0 && (this.#launched >= crawl.frontier.length || crawl.pages.length >= crawl.maxPages)
    );
  }

  #nextStartAt(): number {
    return this.#lastStartAt + this.#crawl.crawlDelayMs;
  }

  /** Until a visit finishes, or the crawl delay lets the next page start. */
  async #waitForProgress(): Promise<void> {
    const nextStartAt = this.#nextStartAt();
    const pause =
      this.#launched < this.#crawl.frontier.length && Date.now() < nextStartAt
        ? crawlPause(nextStartAt - Date.now(), this.#options.signal)
        : null;
    if (this.#inFlight.size > 0 || pause)
      await Promise.race([...this.#inFlight.values(), ...(pause ? [pause.done] : [])]);
    pause?.cancel();
  }
}
