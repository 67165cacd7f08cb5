import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { App } from '../kit/app.ts';

export interface DashboardMetrics {
  registry: Registry;
  requests: Counter<'route' | 'status'>;
  duration: Histogram<'route'>;
}

/** One registry per app (tests build several apps in one process); request counts and durations by route pattern. */
export function createMetrics(app: App): DashboardMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics: DashboardMetrics = {
    registry,
    requests: new Counter({ name: 'dashboard_http_requests_total', help: 'Requests answered, by route pattern and status', labelNames: ['route', 'status'], registers }),
    duration: new Histogram({
      name: 'dashboard_http_request_duration_seconds',
      help: 'Time to answer, by route pattern',
      labelNames: ['route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
  };
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unknown';
    metrics.requests.inc({ route, status: String(reply.statusCode) });
    metrics.duration.observe({ route }, reply.elapsedTime / 1000);
  });
  return metrics;
}
