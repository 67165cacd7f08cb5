import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PUBLIC } from './access.ts';
import type { App } from './app.ts';
import type { Database } from './db.ts';

export { Registry };

/** Counts one answered request in http_requests_total and http_request_duration_seconds; `started` from process.hrtime.bigint(). */
export type HttpRecorder = (method: string, route: string, status: number, started: bigint) => void;

const recorders = new WeakMap<object, HttpRecorder>();

/** The app's HTTP request metrics, for a request answered without Fastify's hooks (kit/front-door.ts). */
export function httpRecorder(app: App): HttpRecorder {
  const record = recorders.get(app);
  if (!record) throw new Error('registerMetrics was not called for this app');
  return record;
}

/** Latency buckets for HTTP requests, in seconds: from a cached lookup to a slow commit. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics every service serves at `/metrics`: the process's (CPU, memory, event loop, GC),
 * every HTTP request by method, route template and status with its latency, and the database pool. A
 * service registers its own metrics in the same registry (one per app, so tests may build several).
 */
export function registerMetrics(app: App, registry: Registry, db: Database | undefined): void {
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: "Time from a request's arrival to the last byte of its answer, by method, route template and status",
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const record: HttpRecorder = (method, route, status, started) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };
  recorders.set(app, record);
  // Measured on the raw response so routes that answer on it themselves (the OAuth provider) count too.
  app.addHook('onRequest', async (request, reply) => {
    const started = process.hrtime.bigint();
    reply.raw.once('finish', () => {
      // The route's template, never the path itself: ids in paths would make a series per resource.
      record(request.method, request.routeOptions.url ?? 'unmatched', reply.raw.statusCode, started);
    });
  });

  if (db) {
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connections of the pool, by state (in_use, idle)',
      labelNames: ['state'],
      registers,
      collect() {
        const s = db.poolStats();
        this.set({ state: 'in_use' }, s.total - s.idle);
        this.set({ state: 'idle' }, s.idle);
      },
    });
    new Gauge({
      name: 'db_pool_waiting',
      help: 'Callers waiting for a database connection',
      registers,
      collect() {
        this.set(db.poolStats().waiting);
      },
    });
    new Counter({
      name: 'db_pool_connections_lost_total',
      help: 'Pooled database connections the server dropped or that failed (replaced by new ones)',
      registers,
      collect() {
        this.reset();
        this.inc(db.poolStats().lost);
      },
    });
  }

  app.get(
    '/metrics',
    {
      config: { access: PUBLIC },
      schema: {
        summary: 'Prometheus metrics (text exposition format)',
        description:
          "HTTP requests by route and status with latency histograms, database pool use, the process, and the service's own metrics.",
        operationId: 'metrics',
        tags: ['operations'],
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
}
