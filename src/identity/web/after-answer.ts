import type { FastifyBaseLogger } from 'fastify';

/** More waiting jobs than this are dropped (logged): a flood past the throttles cannot grow memory without bound. */
const MAX_WAITING = 1_000;

/**
 * Work done after a page has answered, never before: for pages whose answer must not tell whether an address has an
 * account, neither by its words nor by how long it takes ("forgot password", "email me a sign-in code"). The request
 * path queues the job and answers the same for every address; the look-up and the mail run here, one job after the
 * other, on this instance. A job lost to a restart is asked for again by the person (the pages say so).
 */
export class AfterAnswer {
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private readonly log: FastifyBaseLogger;
  private readonly what: string;
  constructor(log: FastifyBaseLogger, what: string) {
    this.log = log;
    this.what = what;
  }

  /** Queues `job`; returns at once. */
  run(job: () => Promise<void>): void {
    if (this.waiting >= MAX_WAITING) {
      this.log.warn(`${this.what} dropped: too many waiting`);
      return;
    }
    this.waiting++;
    this.queue = this.queue
      .then(job)
      .catch((err: unknown) => this.log.error({ err }, `${this.what} failed`))
      .finally(() => {
        this.waiting--;
      });
  }

  /** Settles once every job queued so far is done (the app's close waits for it). */
  idle(): Promise<void> {
    return this.queue;
  }
}
