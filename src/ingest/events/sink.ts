import type { PreparedEvents } from './validate.ts';

/**
 * Where `POST /v1/events` puts a request's accepted events before answering 202: the group commit into PostgreSQL
 * (committer.ts), or, with INGEST_JETSTREAM_SERVERS set, the durable log (log/publisher.ts). Both refuse with
 * CommitUnavailableError when they cannot take the events now (the route answers 503 with Retry-After).
 */
export interface EventSink {
  /** Resolves once the events are durable where this sink keeps them. */
  commit(events: PreparedEvents): Promise<void>;
  /** Refuses new work and waits for what is in flight. */
  close(): Promise<void>;
}
