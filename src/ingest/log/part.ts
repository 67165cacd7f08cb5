import type { App } from '../../kit/app.ts';
import type { ReadinessCheck } from '../../kit/health.ts';
import type { Committer } from '../events/committer.ts';
import type { EventSink } from '../events/sink.ts';
import type { IngestMetrics } from '../metrics.ts';
import { streamBacklog, type Backlog, type StreamBacklog } from './backlog.ts';
import { checkLogConfig, type LogConfig } from './config.ts';
import { openLog, type LogConnection } from './connection.ts';
import { startLoaders } from './loader.ts';
import { createLogMetrics, registerBacklogGauges } from './metrics.ts';
import { createLogPublisher } from './publisher.ts';

/** What the ingest app needs of the log before it is built (its readiness) and after (the sink, the loaders). */
export interface LogPart {
  connection: LogConnection;
  backlog: StreamBacklog;
  readiness: ReadinessCheck;
  /** `/ready`'s account of how far storage is behind the 202s. */
  details(): Promise<Record<string, unknown>>;
}

/** How `/ready` and the loader command show a backlog. */
export function backlogView(b: Backlog): { pending_events: number; lag_seconds: number } {
  return { pending_events: b.events, lag_seconds: Math.round(b.seconds * 1000) / 1000 };
}

/** Connects to the cluster (the stream and the consumer made when missing); a start error when it cannot. */
export async function openLogPart(config: LogConfig, clientName: string): Promise<LogPart> {
  checkLogConfig(config);
  const connection = await openLog(config, clientName);
  const backlog = streamBacklog(connection.jsm, config.jetstreamStream);
  return {
    connection,
    backlog,
    readiness: { name: 'log', check: async () => (await backlog.read()) !== undefined },
    async details() {
      const b = await backlog.read();
      return b ? { log: backlogView(b) } : {};
    },
  };
}

/**
 * The log's part of a built app: the publisher `POST /v1/events` puts events into, the loaders of this process, the
 * metrics. Closing, in this order: requests in flight are answered, loaders store what they took, then (hooks
 * registered before this) the group commit and the connection close.
 */
export function wireLog(
  app: App,
  part: LogPart,
  deps: {
    config: LogConfig & { commitMaxEvents: number; commitConcurrency: number; maxPendingEvents: number };
    committer: Committer;
    metrics: IngestMetrics;
    publishTimeoutMs: number;
    retryAfterMs: number;
  },
): EventSink {
  const { config } = deps;
  const metrics = createLogMetrics(deps.metrics.registry);
  registerBacklogGauges(deps.metrics.registry, part.backlog);
  if (config.jetstreamLoaders > 0) {
    const loaders = startLoaders({
      nc: part.connection.nc,
      stream: config.jetstreamStream,
      consumer: config.jetstreamConsumer,
      committer: deps.committer,
      metrics,
      log: app.log.child({ component: 'loader' }),
      count: config.jetstreamLoaders,
      batchSize: config.commitMaxEvents,
      inFlight: config.commitConcurrency,
      retryAfterMs: deps.retryAfterMs,
    });
    app.addHook('onClose', () => loaders.stop());
  }
  const publisher = createLogPublisher({
    nc: part.connection.nc,
    subject: config.jetstreamSubject,
    stream: config.jetstreamStream,
    metrics,
    log: app.log.child({ component: 'log' }),
    maxPending: config.maxPendingEvents,
    timeoutMs: deps.publishTimeoutMs,
  });
  app.addHook('onClose', () => publisher.close());
  return publisher;
}
