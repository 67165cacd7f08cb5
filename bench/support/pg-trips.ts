import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts how often clients wait for the server. Two counts:
 *
 * - turns: how many times a client sent something after the server had last sent something on that connection,
 *   that is the round trips as the network sees them (messages written together count once);
 * - answer points: the frontend messages after which the server answers and the client waits (Sync, a simple
 *   Query, Flush), read from the client's byte stream.
 *
 * Both include the startup handshake of new connections, so read them around a phase that reuses pooled ones.
 */
export interface TripCounter {
  readonly port: number;
  turns: number;
  syncs: number;
  queries: number;
  flushes: number;
  connections: number;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export async function countingProxy(target: { host: string; port: number }): Promise<TripCounter> {
  const sockets = new Set<Socket>();
  const counter: TripCounter = {
    port: 0,
    turns: 0,
    syncs: 0,
    queries: 0,
    flushes: 0,
    connections: 0,
    reset() {
      counter.turns = 0;
      counter.syncs = 0;
      counter.queries = 0;
      counter.flushes = 0;
      counter.connections = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((client) => {
    counter.connections++;
    const upstream = connect(target);
    sockets.add(client).add(upstream);
    let serverSpokeLast = true;
    // Until the startup message, frontend messages carry no type byte.
    let typed = false;
    let pending: Buffer = Buffer.alloc(0);
    const read = (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!typed) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST && code !== CANCEL_REQUEST) typed = true;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'S') counter.syncs++;
        else if (type === 'Q') counter.queries++;
        else if (type === 'H') counter.flushes++;
        pending = pending.subarray(1 + length);
      }
    };
    client.on('data', (chunk: Buffer) => {
      if (serverSpokeLast) counter.turns++;
      serverSpokeLast = false;
      read(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      serverSpokeLast = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  (counter as { port: number }).port = typeof a === 'object' && a ? a.port : 0;
  return counter;
}
