import type { FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { App } from '../../kit/app.ts';
import { HttpError } from '../../kit/errors.ts';
import type { PlanLimits } from '../config.ts';

const WINDOW_MS = 60_000;

export type RateLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Counts with @fastify/rate-limit's stores (Redis, shared by every instance, when REDIS_URL is set;
 * the instance's memory otherwise) and answers with Document 1's headers: `X-RateLimit-Reset` is the
 * Unix time at which the window resets, which the plugin's own headers do not say (it sends seconds).
 */
/** Requests per minute by plan (Document 1: 60, 300, 1000 unless configured); callers not yet signed in are limited per address at the free value. */
export async function createRateLimiter(
  app: App,
  redis: Redis | undefined,
  prefix: string,
  limits: PlanLimits,
): Promise<RateLimiter> {
  await app.register(rateLimit, {
    global: false,
    timeWindow: WINDOW_MS,
    max: async (request) => (request.user ? limits[request.user.plan] : limits.free),
    keyGenerator: (request) => (request.user ? `tenant:${request.user.tenantId}` : `ip:${request.ip}`),
    // A Redis outage lets requests through rather than refusing every request of every tenant.
    skipOnError: true,
    ...(redis ? { redis, nameSpace: `${prefix}ratelimit:` } : {}),
  });
  const check = app.createRateLimit();
  return async (request, reply) => {
    const r = await check(request);
    if (r.isAllowed) return;
    // With Redis down (skipOnError) the plugin reports ttl 0 and no count: no headers rather than wrong ones.
    if (r.ttl <= 0) return;
    const reset = Math.ceil((Date.now() + r.ttl) / 1000);
    reply.header('x-ratelimit-limit', r.max);
    reply.header('x-ratelimit-remaining', r.remaining);
    reply.header('x-ratelimit-reset', reset);
    if (r.isExceeded) {
      throw new HttpError(
        429,
        'RATE_LIMITED',
        `rate limit of ${r.max} requests per minute exceeded; retry in ${r.ttlInSeconds} s`,
        {
          headers: { 'retry-after': String(r.ttlInSeconds) },
        },
      );
    }
  };
}
