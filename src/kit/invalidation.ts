import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { connectRedis } from './redis.ts';

/** What a cache hears: one key of it dropped, or (key undefined) all of it. */
export type InvalidationHandler = (key: string | undefined) => void;

/**
 * Carries "this changed, drop it" between the caches of every instance of a service. Without Redis it
 * stays in the process; with Redis an invalidation published by one instance reaches every instance at
 * once through pub/sub, instead of each waiting for its copy to expire.
 */
export interface InvalidationBus {
  /** Drops `key` (or everything) from the cache named `cache` here and on every other instance. */
  publish(cache: string, key: string | undefined): void;
  subscribe(cache: string, handler: InvalidationHandler): void;
  close(): Promise<void>;
}

/** One process only: invalidations reach the caches of this instance. */
export function localInvalidationBus(): InvalidationBus {
  const handlers = new Map<string, InvalidationHandler[]>();
  return {
    publish(cache, key) {
      for (const h of handlers.get(cache) ?? []) h(key);
    },
    subscribe(cache, handler) {
      handlers.set(cache, [...(handlers.get(cache) ?? []), handler]);
    },
    async close() {},
  };
}

/** The channel every instance of a service hears its invalidations on, and one invalidation as sent there. */
const channelOf = (service: string) => `platform:invalidate:${service}`;
const messageOf = (cache: string, key: string | undefined) => JSON.stringify({ cache, key });

/**
 * Invalidations over Redis pub/sub on one channel per service. Applied locally first (a change made
 * here is seen here at once whatever Redis does), then published; every instance, this one included,
 * applies what it receives. Messages published while an instance's subscription was down are lost, so
 * an instance that reconnects drops everything it cached: at worst a few extra lookups.
 */
export async function redisInvalidationBus(options: {
  url: string;
  service: string;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  publisher?: Redis;
}): Promise<InvalidationBus> {
  const channel = channelOf(options.service);
  const local = localInvalidationBus();
  const caches = new Set<string>();
  const publisher = options.publisher ?? (await connectRedis(options.url));
  const ownPublisher = !options.publisher;
  let subscriber: Redis;
  try {
    subscriber = await connectRedis(options.url);
    await subscriber.subscribe(channel);
  } catch (err) {
    if (ownPublisher) publisher.disconnect();
    throw err;
  }
  subscriber.on('message', (_channel: string, message: string) => {
    try {
      const { cache, key } = JSON.parse(message) as { cache?: unknown; key?: unknown };
      if (typeof cache === 'string') local.publish(cache, typeof key === 'string' ? key : undefined);
    } catch {
      options.log.warn('ignored a malformed cache invalidation message');
    }
  });
  let connected = true;
  subscriber.on('close', () => {
    if (connected)
      options.log.warn('cache invalidation channel lost: caches fall back to their expiry until Redis is back');
    connected = false;
  });
  subscriber.on('ready', () => {
    if (connected) return;
    connected = true;
    options.log.info('cache invalidation channel back: dropping what was cached meanwhile');
    for (const cache of caches) local.publish(cache, undefined);
  });
  return {
    publish(cache, key) {
      local.publish(cache, key);
      publisher.publish(channel, messageOf(cache, key)).catch((err: unknown) => {
        options.log.warn(
          { err, cache },
          'cache invalidation not published: other instances see the change when their copy expires',
        );
      });
    },
    subscribe(cache, handler) {
      caches.add(cache);
      local.subscribe(cache, handler);
    },
    async close() {
      subscriber.disconnect();
      if (ownPublisher) publisher.disconnect();
    },
  };
}

/** The bus a service's caches share: over Redis when `REDIS_URL` is set, this process only otherwise. */
export async function openInvalidationBus(options: {
  redisUrl: string | undefined;
  service: string;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  publisher?: Redis;
}): Promise<InvalidationBus> {
  return options.redisUrl ? redisInvalidationBus({ ...options, url: options.redisUrl }) : localInvalidationBus();
}

/**
 * One invalidation sent to every running instance of `service` from a process that keeps no cache of the kind (a
 * `platform` command that changed the database): one connection, the message, closed again. Rejects when Redis
 * cannot be reached or refuses it.
 */
export async function announceInvalidation(options: {
  redisUrl: string;
  service: string;
  cache: string;
  key?: string;
}): Promise<void> {
  const redis = await connectRedis(options.redisUrl);
  try {
    await redis.publish(channelOf(options.service), messageOf(options.cache, options.key));
  } finally {
    redis.disconnect();
  }
}
