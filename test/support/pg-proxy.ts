import { once } from 'node:events';
import net from 'node:net';
import { TEST_POSTGRES_URL } from './postgres.ts';

/**
 * A TCP proxy in front of the test PostgreSQL that can be taken down, for a database outage that other tests do not
 * see: while down it drops the connections it carried and accepts each new one, holds it a moment and closes it (a
 * server that refuses), counting the tries and how many are open at once.
 */
export interface PgProxy {
  /** `databaseUrl` (a database on the test server) reached through the proxy. */
  url(databaseUrl: string): string;
  down(): void;
  up(): void;
  tries: number;
  mostAtOnce: number;
  close(): Promise<void>;
}

export async function startPgProxy(): Promise<PgProxy> {
  const target = new URL(TEST_POSTGRES_URL);
  const piped = new Set<net.Socket>();
  let isDown = false;
  let open = 0;
  const proxy: PgProxy = {
    url(databaseUrl) {
      const u = new URL(databaseUrl);
      u.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      return u.toString();
    },
    down() {
      isDown = true;
      for (const s of piped) s.destroy();
    },
    up() {
      isDown = false;
    },
    tries: 0,
    mostAtOnce: 0,
    async close() {
      for (const s of piped) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    if (isDown) {
      proxy.tries++;
      open++;
      proxy.mostAtOnce = Math.max(proxy.mostAtOnce, open);
      // Held open long enough that two tries started close together are seen at once.
      setTimeout(() => {
        open--;
        socket.destroy();
      }, 30);
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => socket.destroy());
    piped.add(socket);
    socket.on('close', () => {
      piped.delete(socket);
      upstream.destroy();
    });
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return proxy;
}
