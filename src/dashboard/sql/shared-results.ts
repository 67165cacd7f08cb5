import { createHash } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { ExecuteResult } from './execute.ts';

/** Most results kept, and most rows across them: the oldest go first when either is passed. */
export const CACHE_MAX_ENTRIES = 500;
export const CACHE_MAX_ROWS = 200_000;

/** What answered a run: the database, a run already under way for the same key, or a result still fresh. */
export type Served = 'database' | 'shared' | 'cache';

export interface SharedResult {
  result: ExecuteResult;
  /** When the rows were read from the database. */
  readAt: Date;
  served: Served;
}

interface Flight {
  promise: Promise<ExecuteResult>;
  controller: AbortController;
  waiting: number;
  startedAt: Date;
}

interface Entry {
  result: ExecuteResult;
  readAt: Date;
}

/** The key of a run: what makes its rows what they are (the source as it is now, the statement, its values) and who asks. */
export function runKey(parts: {
  sourceId: number;
  sourceVersion: number;
  query: string;
  parameters: Readonly<Record<string, unknown>>;
  maxRows: number;
  role: string;
}): string {
  const values = Object.keys(parts.parameters)
    .sort()
    .map((k) => [k, parts.parameters[k]]);
  const text = JSON.stringify([parts.sourceId, parts.sourceVersion, parts.query, values, parts.maxRows, parts.role]);
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * Results of stored SQL (widgets) shared between callers. Identical runs at the same time make one trip to the
 * database (single flight): each caller waits for the one run, which is cancelled only when every caller has gone.
 * A result is then kept for the time the widget asks (`ttlMs`, 0: not kept), in memory, bounded by CACHE_MAX_ENTRIES
 * and CACHE_MAX_ROWS. Failures are never kept. A changed source or statement is another key, so nothing stale is
 * answered after an edit; what is no longer asked for ages out.
 */
export class SharedResults {
  private readonly flights = new Map<string, Flight>();
  private readonly entries = new Map<string, Entry>();
  private rows = 0;
  private readonly served: Counter<'served'> | undefined;
  private readonly now: () => number;

  constructor(metrics?: Registry, now: () => number = Date.now) {
    this.now = now;
    this.served = metrics
      ? new Counter({
          name: 'dashboard_widget_runs_total',
          help: 'Widget runs by what answered them: the database, a run under way for the same key (shared), or the result cache',
          labelNames: ['served'],
          registers: [metrics],
        })
      : undefined;
  }

  async run(
    key: string,
    options: { ttlMs: number; refresh?: boolean | undefined; signal?: AbortSignal | undefined },
    execute: (signal: AbortSignal) => Promise<ExecuteResult>,
  ): Promise<SharedResult> {
    const kept = options.refresh ? undefined : this.fresh(key, options.ttlMs);
    if (kept) {
      this.served?.inc({ served: 'cache' });
      return { ...kept, served: 'cache' };
    }
    let flight = this.flights.get(key);
    const joined = flight !== undefined;
    if (!flight) flight = this.start(key, options.ttlMs, execute);
    // Counted as the caller joins, not when the rows come: the count says how many are waiting on one run.
    this.served?.inc({ served: joined ? 'shared' : 'database' });
    flight.waiting++;
    const current = flight;
    const leave = () => {
      current.waiting--;
      if (current.waiting === 0) current.controller.abort(options.signal?.reason);
    };
    options.signal?.addEventListener('abort', leave, { once: true });
    try {
      const result = await current.promise;
      return { result, readAt: current.startedAt, served: joined ? 'shared' : 'database' };
    } finally {
      if (!options.signal?.aborted) {
        options.signal?.removeEventListener('abort', leave);
        current.waiting--;
      }
    }
  }

  clear(): void {
    this.entries.clear();
    this.rows = 0;
  }

  private start(key: string, ttlMs: number, execute: (signal: AbortSignal) => Promise<ExecuteResult>): Flight {
    const controller = new AbortController();
    const startedAt = new Date(this.now());
    const promise = execute(controller.signal).then((result) => {
      if (ttlMs > 0) this.keep(key, { result, readAt: startedAt });
      return result;
    });
    const flight: Flight = { promise, controller, waiting: 0, startedAt };
    this.flights.set(key, flight);
    // The flight ends for everyone at once; a later identical run is a new one (or a cache hit).
    void promise.then(
      () => this.flights.delete(key),
      () => this.flights.delete(key),
    );
    return flight;
  }

  private fresh(key: string, ttlMs: number): Entry | undefined {
    // A widget that keeps nothing reads nothing kept, but leaves the rows another widget of the same SQL keeps.
    if (ttlMs <= 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.readAt.getTime() >= ttlMs) {
      this.drop(key, entry);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  private keep(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    if (entry.result.rows.length > CACHE_MAX_ROWS) return;
    this.entries.set(key, entry);
    this.rows += entry.result.rows.length;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= CACHE_MAX_ENTRIES && this.rows <= CACHE_MAX_ROWS) break;
      this.drop(k, e);
    }
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.rows -= entry.result.rows.length;
  }
}
