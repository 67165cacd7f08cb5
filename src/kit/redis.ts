import type { Redis } from 'ioredis';
import { StartupError } from './start-errors.ts';

/**
 * A Redis connection for state that must hold across instances (rate limits, throttles), ready when the
 * promise resolves. Commands fail fast while Redis is unreachable instead of queueing without bound, so a
 * caller decides what an outage means for it; ioredis keeps reconnecting in the background.
 */
export async function connectRedis(url: string, timeoutMs = 3_000): Promise<Redis> {
  // Loaded here, not at start: most installs have no Redis, and ioredis is ~2 MB of heap (bench/README.md, issue 33).
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: timeoutMs });
  // Connection errors are retried by ioredis itself; without a listener each would be an unhandled 'error' event.
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new StartupError(
              `Redis at ${redactedUrl(url)} did not answer within ${timeoutMs} ms${lastError ? `: ${lastError.message}` : ''} (REDIS_URL)`,
            ),
          ),
        timeoutMs,
      );
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return redis;
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured URL';
  }
}
