import type { FastifyBaseLogger } from 'fastify';
import { createInbox, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { CommitUnavailableError } from '../events/committer.ts';
import type { EventSink } from '../events/sink.ts';
import type { PreparedEvents } from '../events/validate.ts';
import { eventMessages } from './message.ts';
import type { LogMetrics } from './metrics.ts';

export interface PublisherOptions {
  nc: NatsConnection;
  subject: string;
  stream: string;
  metrics: LogMetrics;
  log: FastifyBaseLogger;
  /** Events published and not yet acknowledged beyond which new requests are refused (503). */
  maxPending: number;
  /** Longest wait for the stream's acknowledgements of one request's events. */
  timeoutMs: number;
}

/** One request's events on their way: settled when the stream has acknowledged every one, or on the first failure. */
interface Pending {
  keys: string[];
  left: number;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** What JetStream answers a publish with (a PubAck, or an API error). */
interface PubAckBody {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; description?: string };
}

/**
 * The events sink of `POST /v1/events` with the log on: each accepted event is published as one message (message.ts)
 * with its Nats-Msg-Id, and the request is answered 202 once the stream has acknowledged every one of them — after a
 * majority of the stream's replicas stored it. The messages are published at once, not one request-reply after the
 * other: every acknowledgement comes back to one wildcard subscription (the reply subject names the message), which
 * costs a quarter of the client CPU of awaiting `js.publish` per message (bench/README.md). Any error answer, or no
 * answer within `timeoutMs` (the cluster down, a stream without a leader), refuses the request with 503: some of its
 * events may be in the stream, and a retry is recognised by their ids (in the stream's window, then in storage).
 */
export function createLogPublisher(options: PublisherOptions): EventSink {
  const { nc, subject, stream, metrics, log } = options;
  const inbox = createInbox();
  const waiting = new Map<string, Pending>();
  let sequence = 0;
  let pendingEvents = 0;
  let closed = false;
  let downSince: number | undefined;

  const settle = (pending: Pending, err?: Error) => {
    clearTimeout(pending.timer);
    for (const key of pending.keys) waiting.delete(key);
    if (err) {
      if (downSince === undefined) {
        downSince = Date.now();
        log.error({ err }, 'the log (JetStream) does not take events: answering 503 with Retry-After until it does');
      }
      pending.reject(err);
    } else {
      if (downSince !== undefined) {
        log.warn(
          { downSeconds: Math.round((Date.now() - downSince) / 1000) },
          'the log (JetStream) takes events again',
        );
        downSince = undefined;
      }
      pending.resolve();
    }
  };

  const acknowledged = (msg: Msg) => {
    const key = msg.subject.slice(inbox.length + 1);
    const pending = waiting.get(key);
    if (!pending) return;
    waiting.delete(key);
    // A status without a body: 503 "no responders" when nothing takes the subject (the stream has no leader, during
    // an election, or does not exist).
    if (msg.headers?.hasError || msg.data.length === 0) {
      metrics.publishFailures.inc({ kind: 'no_stream' });
      const status =
        msg.headers?.code === 503
          ? 'no server took them: the stream has no leader'
          : `${msg.headers?.code} ${msg.headers?.description}`;
      return settle(pending, new CommitUnavailableError(`the log is unavailable (${status})`));
    }
    let body: PubAckBody;
    try {
      body = msg.json<PubAckBody>();
    } catch {
      body = { error: { description: 'an answer that is not JSON' } };
    }
    if (body.error || body.stream !== stream) {
      metrics.publishFailures.inc({ kind: 'refused' });
      return settle(
        pending,
        new CommitUnavailableError(
          `the log refused the events: ${body.error?.description ?? `taken by stream ${body.stream}, not ${stream}`}`,
        ),
      );
    }
    if (body.duplicate) metrics.duplicates.inc();
    if (--pending.left === 0) settle(pending);
  };

  const subscription: Subscription = nc.subscribe(`${inbox}.*`, { callback: (_err, msg) => acknowledged(msg) });

  const publish = (events: PreparedEvents): Promise<void> => {
    if (closed) return Promise.reject(new CommitUnavailableError('the service is shutting down'));
    if (pendingEvents + events.count > options.maxPending) {
      metrics.publishFailures.inc({ kind: 'overloaded' });
      return Promise.reject(new CommitUnavailableError('too many events are waiting for the log'));
    }
    const { payloads, ids } = eventMessages(events);
    pendingEvents += events.count;
    const started = performance.now();
    return new Promise<void>((resolve, reject) => {
      const pending: Pending = {
        keys: [],
        left: payloads.length,
        resolve,
        reject,
        timer: setTimeout(() => {
          metrics.publishFailures.inc({ kind: 'timeout' });
          settle(pending, new CommitUnavailableError('the log did not acknowledge the events in time'));
        }, options.timeoutMs),
      };
      try {
        for (let i = 0; i < payloads.length; i++) {
          const key = (sequence++).toString(36);
          pending.keys.push(key);
          waiting.set(key, pending);
          const h = headers();
          h.set('Nats-Msg-Id', ids[i]!);
          nc.publish(subject, payloads[i], { reply: `${inbox}.${key}`, headers: h });
        }
      } catch (err) {
        // The connection is closed for good (it reconnects otherwise, buffering what is published meanwhile).
        metrics.publishFailures.inc({ kind: 'closed' });
        settle(pending, new CommitUnavailableError(`the log is unavailable: ${(err as Error).message}`));
      }
    }).finally(() => {
      pendingEvents -= events.count;
      metrics.publishSeconds.observe((performance.now() - started) / 1000);
    });
  };

  return {
    commit: publish,
    async close() {
      closed = true;
      // Requests in flight get their answers (or their timeouts) before the connection goes.
      while (waiting.size > 0) await new Promise((r) => setTimeout(r, 10));
      subscription.unsubscribe();
    },
  };
}
