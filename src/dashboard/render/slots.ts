import { Counter, Gauge, type Registry } from 'prom-client';

/** A render refused because every slot is taken and the queue is full: the caller may try again later. */
export class RenderBusy extends Error {
  constructor() {
    super('every picture this instance may draw at once is being drawn, and as many wait: try again shortly');
    this.name = 'RenderBusy';
  }
}

/** A render its caller gave up on (a download whose client closed the connection): it left the queue, or was stopped. */
export class RenderAborted extends Error {
  constructor() {
    super('the caller went away before the picture was drawn');
    this.name = 'RenderAborted';
  }
}

/**
 * The renders one instance runs at once. Each is a headless Chromium (a few hundred MB and a core while it draws), so
 * at most `concurrency` run; up to `queue` more wait for a slot in arrival order, and a render asked for beyond that
 * is refused at once (RenderBusy) rather than waiting without end. `patient` work (a subscription's send, which the
 * scheduler runs one at a time) waits whatever the queue holds, and is never refused.
 */
export class RenderSlots {
  readonly concurrency: number;
  readonly queue: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #refused: Counter | undefined;

  constructor(options: { concurrency: number; queue: number; metrics?: Registry | undefined }) {
    this.concurrency = options.concurrency;
    this.queue = options.queue;
    const registers = options.metrics ? [options.metrics] : undefined;
    if (!registers) return;
    const slots = this;
    new Gauge({
      name: 'dashboard_renders_running',
      help: 'Dashboard pictures (downloads and subscriptions) being drawn by this instance',
      registers,
      collect() {
        this.set(slots.#running);
      },
    });
    new Gauge({
      name: 'dashboard_renders_waiting',
      help: 'Dashboard pictures waiting for a free slot (DASHBOARD_RENDER_CONCURRENCY)',
      registers,
      collect() {
        this.set(slots.#waiting.length);
      },
    });
    this.#refused = new Counter({
      name: 'dashboard_renders_refused_total',
      help: 'Dashboard downloads refused because every slot was taken and the queue was full (DASHBOARD_RENDER_QUEUE)',
      registers,
    });
  }

  /**
   * Runs `work` in a slot, after waiting for one; throws RenderBusy when it would have to wait and the queue is full,
   * and RenderAborted when `signal` aborts while it waits (it leaves the queue: the next in line moves up). Once in a
   * slot, stopping is `work`'s to do, which gets the signal; the slot is freed when it returns or throws.
   */
  async run<T>(
    work: () => Promise<T>,
    options: { patient?: boolean; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) throw new RenderAborted();
    if (this.#running < this.concurrency) this.#running++;
    else if (!options.patient && this.#waiting.length >= this.queue) {
      this.#refused?.inc();
      throw new RenderBusy();
    } else await this.#wait(signal);
    try {
      return await work();
    } finally {
      // The slot goes to the next in line as it is, or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  /** Resolves when a finishing render hands this one its slot; rejects, out of the line, when `signal` aborts first. */
  #wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const handed = () => {
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      const gone = () => {
        const at = this.#waiting.indexOf(handed);
        // Already handed the slot: the render starts, sees the signal and gives the slot back at once.
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        reject(new RenderAborted());
      };
      signal?.addEventListener('abort', gone, { once: true });
      this.#waiting.push(handed);
    });
  }
}
