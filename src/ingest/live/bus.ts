import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';

/**
 * How the instances of ingest tell one another what is happening live: PostgreSQL's LISTEN/NOTIFY, on one channel per
 * schema, every instance listening on its own connection (docs/decisions.md, "Live events"). The database is there
 * for every instance already; NATS is not (the log is optional). In-process only for the embedded database, which
 * one process holds.
 */
export interface LiveBus {
  publish(messages: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's limit for a notification's payload is 8,000 bytes; messages are cut to stay under it. */
export const MAX_MESSAGE_BYTES = 7_600;

export function localBus(deliver: (message: string) => void): LiveBus {
  return {
    async publish(messages) {
      for (const m of messages) queueMicrotask(() => deliver(m));
    },
    async close() {},
  };
}

/**
 * A listening connection of its own (a pooled one would lose its LISTEN when handed back), reconnected after a loss;
 * notifications go out through `notify`, the pool's. Messages missed while reconnecting are lost: the stream is live,
 * not a log.
 */
export async function postgresBus(options: {
  url: string;
  channel: string;
  notify: (channel: string, payload: string) => Promise<unknown>;
  deliver: (message: string) => void;
  log: FastifyBaseLogger;
  /** Milliseconds before trying again after a lost connection, and after a failed try (tests shorten them). */
  retryMs?: { lost: number; failed: number };
}): Promise<LiveBus> {
  const retryMs = options.retryMs ?? { lost: 1_000, failed: 5_000 };
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  // One try at a time: a failed try is answered twice by pg (its promise rejects, then its client emits 'end'), and
  // answering both once spawned two tries per failure, so a dropped database grew the process to gigabytes.
  const tryAgain = (delayMs: number) => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect().catch(reconnectLater);
    }, delayMs);
  };
  // A failed reconnection tries again a few seconds later, for as long as the service runs.
  // The live view is best effort: a lost listening connection is said once at info (during a database outage the
  // outage log says what matters, once), and each further failed try only at debug.
  let failedTries = 0;
  const reconnectLater = (err: Error) => {
    failedTries++;
    (failedTries === 1 ? options.log.info : options.log.debug).call(
      options.log,
      { err: err.message },
      'live events: cannot listen yet; trying again',
    );
    tryAgain(retryMs.failed);
  };
  const connect = async () => {
    const c = new pg.Client({
      connectionString: options.url,
      application_name: 'ingest live',
      // A server that accepts and never answers would otherwise hold the one try for ever.
      connectionTimeoutMillis: 10_000,
    });
    c.on('notification', (n) => {
      if (n.channel === options.channel && n.payload) options.deliver(n.payload);
    });
    // Until it listens, a failure is the try's own (its rejection answers it); after, a loss is reported here, once.
    let listening = false;
    const reconnect = (why: string) => {
      if (!listening) return;
      listening = false;
      if (client === c) client = undefined;
      if (closed) return;
      options.log.info({ why }, 'live events: the listening connection was lost; reconnecting');
      void c.end().catch(() => {});
      tryAgain(retryMs.lost);
    };
    c.on('error', (err) => reconnect(err.message));
    c.on('end', () => reconnect('the connection ended'));
    try {
      await c.connect();
      await c.query(`LISTEN "${options.channel}"`);
    } catch (err) {
      // Connected but not listening would hold a server connection nobody uses.
      void c.end().catch(() => {});
      throw err;
    }
    failedTries = 0;
    if (closed) await c.end();
    else {
      listening = true;
      client = c;
    }
  };
  await connect();
  return {
    async publish(messages) {
      for (const m of messages) await options.notify(options.channel, m);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
