import type { FastifyBaseLogger } from 'fastify';
import { jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { isUnavailable, type Committer } from '../events/committer.ts';
import { MalformedMessageError, preparedFromRows } from './message.ts';
import type { LogMetrics } from './metrics.ts';

export interface LoaderOptions {
  nc: NatsConnection;
  stream: string;
  consumer: string;
  /** The group commit: what `POST /v1/events` uses without the log, outbox trigger and dedup included. */
  committer: Committer;
  metrics: LogMetrics;
  log: FastifyBaseLogger;
  /** Loaders (consumption loops) to run. */
  count: number;
  /** Most events one batch takes (INGEST_COMMIT_MAX_EVENTS). */
  batchSize: number;
  /** Batches of one loader being stored at once. */
  inFlight: number;
  /** How long storage is left alone after it was unavailable; the batch comes back after it. */
  retryAfterMs: number;
}

/**
 * Longest a batch waits for more events once it has one. Under a backlog the client's buffer fills batches before it;
 * at a trickle the buffer is empty and an event goes at once. The client's count of buffered messages can stay above
 * zero with nothing left to come, and this bounds the wait then (without it the last events of a burst would wait for
 * their redelivery).
 */
const LINGER_MS = 50;

export interface Loaders {
  /** Stops taking events, stores and acknowledges what was taken, and resolves. */
  stop(): Promise<void>;
}

/**
 * Loaders: each consumes the stream through the one durable consumer all loaders share (so each event goes to one
 * loader at a time, whichever process runs it) and writes batches through the group commit, acknowledging each event
 * only once its batch is committed. A loader that dies before acknowledging leaves its events to come back after
 * INGEST_JETSTREAM_ACK_WAIT_SECONDS, to it or another loader; events it had already stored are then skipped by the
 * unique index (the same ON CONFLICT path as a client's retry), so storage holds each event once.
 *
 * A batch is what the client has buffered, up to `batchSize`, or what arrived within LINGER_MS of its first event:
 * under a backlog full batches, at a trickle an event at once.
 */
export function startLoaders(options: LoaderOptions): Loaders {
  const { metrics, log } = options;
  const js = jetstream(options.nc);
  let stopping = false;
  const running = new Set<ConsumerMessages>();
  let pauseUntil = 0;

  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  /** Isolates what one event's failure would sink: every event alone, each acknowledged, retried or dropped. */
  const storeEach = async (messages: JsMsg[]) => {
    for (const m of messages) {
      let prepared: ReturnType<typeof preparedFromRows>;
      try {
        prepared = preparedFromRows([m.data]);
      } catch (err) {
        if (!(err instanceof MalformedMessageError)) throw err;
        metrics.loaderFailures.inc({ kind: 'malformed' });
        log.error({ seq: m.seq, reason: err.message }, 'loader: a message that is not an event row; dropped');
        m.term(err.message);
        continue;
      }
      try {
        await options.committer.commit(prepared);
        metrics.loaded.inc();
        m.ack();
      } catch (err) {
        if (isUnavailable(err)) {
          m.nak(options.retryAfterMs);
          continue;
        }
        // Only a change behind the event's back gets here (its project deleted since it was accepted): retrying
        // would fail for ever and hold the consumer's pending acknowledgements.
        metrics.loaderFailures.inc({ kind: 'rejected' });
        log.error({ err, seq: m.seq }, 'loader: PostgreSQL refused an event; dropped');
        m.term('refused by PostgreSQL');
      }
    }
  };

  const store = async (messages: JsMsg[]) => {
    let oldest = Number.POSITIVE_INFINITY;
    for (const m of messages) {
      if (m.info.deliveryCount > 1) metrics.redeliveries.inc();
      oldest = Math.min(oldest, m.info.timestampNanos / 1e6);
    }
    let prepared: ReturnType<typeof preparedFromRows>;
    try {
      prepared = preparedFromRows(messages.map((m) => m.data));
    } catch (err) {
      if (!(err instanceof MalformedMessageError)) throw err;
      return storeEach(messages);
    }
    try {
      await options.committer.commit(prepared);
    } catch (err) {
      if (isUnavailable(err)) {
        metrics.loaderFailures.inc({ kind: 'unavailable' });
        pauseUntil = Date.now() + options.retryAfterMs;
        for (const m of messages) m.nak(options.retryAfterMs);
        return;
      }
      log.warn({ err, events: messages.length }, 'loader: a batch failed; storing its events one by one');
      return storeEach(messages);
    }
    for (const m of messages) m.ack();
    metrics.loaded.inc(messages.length);
    metrics.loadedBatch.observe(messages.length);
    metrics.loadDelaySeconds.observe(Math.max(0, (Date.now() - oldest) / 1000));
  };

  const loop = async (n: number) => {
    const busy = new Set<Promise<void>>();
    const hand = (messages: JsMsg[]) => {
      const p: Promise<void> = store(messages)
        .catch((err) => log.error({ err, loader: n }, 'loader: storing a batch failed'))
        .finally(() => busy.delete(p));
      busy.add(p);
    };
    let quiet = false;
    while (!stopping) {
      let messages: ConsumerMessages;
      try {
        const consumer = await js.consumers.get(options.stream, options.consumer);
        messages = await consumer.consume({ max_messages: options.batchSize * 2 });
      } catch (err) {
        // Once per outage, not once per attempt.
        if (!quiet) log.warn({ err, loader: n }, 'loader: the stream does not answer; retrying');
        quiet = true;
        await sleep(500);
        continue;
      }
      quiet = false;
      running.add(messages);
      const iterator = messages[Symbol.asyncIterator]();
      let batch: JsMsg[] = [];
      let linger: Promise<undefined> | undefined;
      const flush = async () => {
        while (busy.size >= options.inFlight) await Promise.race(busy);
        const wait = pauseUntil - Date.now();
        if (wait > 0) await sleep(wait);
        hand(batch);
        batch = [];
        linger = undefined;
      };
      try {
        let next = iterator.next();
        for (;;) {
          // An empty batch waits for its first event as long as it takes; a started one at most LINGER_MS in all.
          const step = linger ? await Promise.race([next, linger]) : await next;
          if (step === undefined) {
            await flush();
            continue;
          }
          if (step.done) break;
          batch.push(step.value);
          next = iterator.next();
          linger ??= sleep(LINGER_MS).then(() => undefined);
          // Nothing more buffered: go now rather than wait out the linger.
          if (batch.length >= options.batchSize || messages.getPending() === 0) await flush();
        }
      } catch (err) {
        if (!stopping) log.warn({ err, loader: n }, 'loader: consuming stopped; starting again');
      } finally {
        running.delete(messages);
      }
      // What was taken and not yet handed on is stored before the loop ends or starts consuming again.
      if (batch.length) hand(batch);
      if (!stopping) await sleep(250);
    }
    await Promise.all(busy);
  };

  const loops = Array.from({ length: options.count }, (_, n) => loop(n));
  return {
    async stop() {
      stopping = true;
      for (const messages of running) messages.stop();
      await Promise.all(loops);
    },
  };
}
