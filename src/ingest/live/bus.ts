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
}): Promise<LiveBus> {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
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
    if (!closed) retry = setTimeout(() => void connect().catch(reconnectLater), 5_000);
  };
  const connect = async () => {
    const c = new pg.Client({ connectionString: options.url, application_name: 'ingest live' });
    c.on('notification', (n) => {
      if (n.channel === options.channel && n.payload) options.deliver(n.payload);
    });
    let lost = false;
    const reconnect = (why: string) => {
      if (lost) return;
      lost = true;
      if (client === c) client = undefined;
      if (closed) return;
      options.log.info({ why }, 'live events: the listening connection was lost; reconnecting');
      void c.end().catch(() => {});
      retry = setTimeout(() => void connect().catch((err: Error) => reconnectLater(err)), 1_000);
    };
    c.on('error', (err) => reconnect(err.message));
    c.on('end', () => reconnect('the connection ended'));
    await c.connect();
    await c.query(`LISTEN "${options.channel}"`);
    failedTries = 0;
    if (closed) await c.end();
    else client = c;
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
