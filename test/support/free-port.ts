import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now; it may be taken before it is used, so start through `onFreePort`. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server that must know its own port before it listens (an OAuth issuer, a login callback URL)
 * on a port that was free a moment ago, and on another one when something else took it meanwhile
 * (`EADDRINUSE`): test files run in parallel, so the race between finding a port and listening on it is
 * real. `start` must release what it built before it throws.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (err) {
      if (attempt >= attempts || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
