import { Counter, Gauge, type Registry } from 'prom-client';
import type { Queryable } from '../../kit/db.ts';
import { lagByDestination } from './delivery/outbox.ts';

export interface ForwardingMetrics {
  delivered: Counter<'destination' | 'kind'>;
  retried: Counter<'destination' | 'kind'>;
  deadLettered: Counter<'destination' | 'kind'>;
}

/** Per-destination counters, and lag and backlog read from the outbox at each scrape (so they agree across instances). */
export function createForwardingMetrics(registry: Registry, db: Queryable): ForwardingMetrics {
  const registers = [registry];
  const labelNames = ['destination', 'kind'] as const;
  type Reading = { id: string; kind: string; lag: number; pending: number }[];
  let lastRead: Reading = [];
  let inFlight: Promise<Reading> | undefined;
  // Both gauges are collected in one scrape: they share one query.
  const read = (): Promise<Reading> => {
    inFlight ??= lagByDestination(db)
      .then((r) => (lastRead = r))
      // The database is unreachable or closing: keep the last reading rather than fail the whole scrape.
      .catch(() => lastRead)
      .finally(() => (inFlight = undefined));
    return inFlight;
  };
  new Gauge({
    name: 'ingest_forwarding_lag_seconds',
    help: 'Age of the oldest event still waiting for delivery to the destination (0 when none)',
    labelNames,
    registers,
    async collect() {
      this.reset();
      for (const d of await read()) this.set({ destination: d.id, kind: d.kind }, d.lag);
    },
  });
  new Gauge({
    name: 'ingest_forwarding_pending_events',
    help: 'Events waiting for delivery to the destination (due or scheduled for retry)',
    labelNames,
    registers,
    async collect() {
      this.reset();
      for (const d of await read()) this.set({ destination: d.id, kind: d.kind }, d.pending);
    },
  });
  return {
    delivered: new Counter({
      name: 'ingest_forwarding_delivered_total',
      help: 'Events delivered to the destination',
      labelNames,
      registers,
    }),
    retried: new Counter({
      name: 'ingest_forwarding_retried_total',
      help: 'Failed event deliveries scheduled for another attempt',
      labelNames,
      registers,
    }),
    deadLettered: new Counter({
      name: 'ingest_forwarding_dead_lettered_total',
      help: 'Events moved to the dead letters after their last failure',
      labelNames,
      registers,
    }),
  };
}
