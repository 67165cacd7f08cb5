import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { StreamBacklog } from './backlog.ts';

export interface LogMetrics {
  /** Requests whose events the log did not take, by why: timeout, refused, no_stream, overloaded, closed. */
  publishFailures: Counter<'kind'>;
  /** Published events the stream already held (a retry within its de-duplication window). */
  duplicates: Counter;
  publishSeconds: Histogram;
  /** Events this process's loaders stored (or found stored) and acknowledged. */
  loaded: Counter;
  loadedBatch: Histogram;
  /** Events a loader received again: a loader died or was too slow before acknowledging them. */
  redeliveries: Counter;
  /** Batches a loader could not store, by why: unavailable (retried), rejected and malformed (dropped, logged). */
  loaderFailures: Counter<'kind'>;
  /** From an event's arrival in the stream to its storage, for the oldest event of each batch. */
  loadDelaySeconds: Histogram;
}

export function createLogMetrics(registry: Registry): LogMetrics {
  const registers = [registry];
  return {
    publishFailures: new Counter({
      name: 'ingest_log_publish_failures_total',
      help: 'Requests whose events the log did not acknowledge (answered 503), by kind',
      labelNames: ['kind'],
      registers,
    }),
    duplicates: new Counter({
      name: 'ingest_log_duplicates_total',
      help: 'Published events the stream already held within its de-duplication window',
      registers,
    }),
    publishSeconds: new Histogram({
      name: 'ingest_log_publish_duration_seconds',
      help: "From publishing a request's events to the stream's last acknowledgement",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    loaded: new Counter({
      name: 'ingest_loader_events_total',
      help: "Events this process's loaders wrote to PostgreSQL (or found there) and acknowledged",
      registers,
    }),
    loadedBatch: new Histogram({
      name: 'ingest_loader_batch_events',
      help: 'Events per batch a loader wrote',
      buckets: [1, 10, 100, 500, 1000, 2500, 5000, 10000],
      registers,
    }),
    redeliveries: new Counter({
      name: 'ingest_loader_redeliveries_total',
      help: 'Events a loader received more than once (a loader died or was too slow to acknowledge them)',
      registers,
    }),
    loaderFailures: new Counter({
      name: 'ingest_loader_failures_total',
      help: 'Loader batches or events that could not be stored, by kind (unavailable: retried; rejected, malformed: dropped and logged)',
      labelNames: ['kind'],
      registers,
    }),
    loadDelaySeconds: new Histogram({
      name: 'ingest_loader_delay_seconds',
      help: 'From the arrival of the oldest event of a batch in the stream to its storage',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
  };
}

/** How far storage is behind the 202s, read from the stream at each scrape (the same for every instance). */
export function registerBacklogGauges(registry: Registry, backlog: StreamBacklog): void {
  const registers = [registry];
  new Gauge({
    name: 'ingest_log_pending_events',
    help: 'Events acknowledged to clients (202) and not yet stored in PostgreSQL: what the stream holds',
    registers,
    async collect() {
      const b = await backlog.read();
      if (b) this.set(b.events);
    },
  });
  new Gauge({
    name: 'ingest_log_lag_seconds',
    help: 'Age of the oldest event not yet stored (0 when none): how far storage is behind the 202s',
    registers,
    async collect() {
      const b = await backlog.read();
      if (b) this.set(b.seconds);
    },
  });
}
