import { Counter, Histogram, Registry } from 'prom-client';

export interface IngestMetrics {
  /** One registry per app instance: tests build several apps in one process. Forwarding registers its metrics here too. */
  registry: Registry;
  eventsAccepted: Counter;
  /** Accepted events that were already stored (a retry); counted in eventsAccepted as well. */
  eventsDuplicate: Counter;
  /** Valid events of a suppressed user, answered as accepted and dropped (src/ingest/erasure); in eventsAccepted too. */
  eventsSuppressed: Counter;
  eventsRejected: Counter<'reason'>;
  requestsRejected: Counter<'reason'>;
  requestBytes: Histogram<'encoding'>;
  batchEvents: Histogram;
  commitSeconds: Histogram;
  commitEvents: Histogram;
  /** Group commits whose INSERT without ON CONFLICT met a stored event and were inserted again (committer.ts). */
  commitConflictRetries: Counter;
  commitFailures: Counter<'kind'>;
}

/** Ingest's own metrics; the kit adds the process's, HTTP requests and the database pool to the same registry. */
export function createMetrics(): IngestMetrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    eventsAccepted: new Counter({
      name: 'ingest_events_accepted_total',
      help: 'Events answered as accepted (committed, or already stored)',
      registers,
    }),
    eventsDuplicate: new Counter({
      name: 'ingest_events_duplicate_total',
      help: 'Accepted events whose (project, event_id) was already stored',
      registers,
    }),
    eventsSuppressed: new Counter({
      name: 'ingest_events_suppressed_total',
      help: 'Valid events dropped because an erasure suppresses their user.id (answered as accepted)',
      registers,
    }),
    eventsRejected: new Counter({
      name: 'ingest_events_rejected_total',
      help: 'Events rejected by validation, by reason',
      labelNames: ['reason'],
      registers,
    }),
    requestsRejected: new Counter({
      name: 'ingest_requests_rejected_total',
      help: 'Requests to /v1/events refused as a whole, by reason',
      labelNames: ['reason'],
      registers,
    }),
    requestBytes: new Histogram({
      name: 'ingest_request_body_bytes',
      help: 'Size of /v1/events bodies after decompression, by content encoding',
      labelNames: ['encoding'],
      buckets: [1_000, 10_000, 100_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000],
      registers,
    }),
    batchEvents: new Histogram({
      name: 'ingest_batch_events',
      help: 'Events per accepted request',
      buckets: [1, 10, 50, 100, 250, 500, 1000],
      registers,
    }),
    commitSeconds: new Histogram({
      name: 'ingest_commit_duration_seconds',
      help: 'Time of one group commit (insert and commit)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    commitEvents: new Histogram({
      name: 'ingest_commit_events',
      help: 'Events written by one group commit',
      buckets: [1, 100, 1000, 2500, 5000, 10000, 20000, 50000],
      registers,
    }),
    commitConflictRetries: new Counter({
      name: 'ingest_commit_conflict_retries_total',
      help: 'Group commits whose plain INSERT met an event already stored and that were inserted again skipping such events',
      registers,
    }),
    commitFailures: new Counter({
      name: 'ingest_commit_failures_total',
      help: 'Group commits that failed, by kind (unavailable, timeout, error)',
      labelNames: ['kind'],
      registers,
    }),
  };
}
