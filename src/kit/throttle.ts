import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Slows down repeated failures per key (an account, a client address): after `freeFailures` failures
 * each further attempt must wait, doubling from 1 s up to `maxWaitMs`; a key with no failure for
 * `forgetAfterMs` starts over. Kept in Redis when configured, so every instance sees the same counts;
 * in memory otherwise.
 */
export interface Throttle {
  /** Seconds to wait before another attempt is allowed for any of these keys; 0 when allowed now. */
  waitSeconds(keys: readonly string[]): Promise<number>;
  fail(keys: readonly string[]): Promise<void>;
  succeed(key: string): Promise<void>;
}

export interface ThrottleOptions {
  freeFailures: number;
  maxWaitMs?: number;
  forgetAfterMs?: number;
  /** Namespace of the keys in Redis. */
  prefix?: string;
}

function delayFor(failures: number, free: number, maxWaitMs: number): number {
  const over = failures - free;
  return over < 0 ? 0 : Math.min(maxWaitMs, 1000 * 2 ** over);
}

interface Entry {
  failures: number;
  blockedUntil: number;
  lastFailure: number;
}

export function memoryThrottle(options: ThrottleOptions): Throttle {
  const maxWait = options.maxWaitMs ?? 15 * 60_000;
  const forget = options.forgetAfterMs ?? 60 * 60_000;
  const entries = new Map<string, Entry>();
  const prune = (now: number) => {
    for (const [key, e] of entries) if (now - e.lastFailure > forget) entries.delete(key);
  };
  return {
    async waitSeconds(keys) {
      const now = Date.now();
      let wait = 0;
      for (const key of keys) {
        const e = entries.get(key);
        if (!e) continue;
        if (now - e.lastFailure > forget) entries.delete(key);
        else wait = Math.max(wait, e.blockedUntil - now);
      }
      return Math.ceil(Math.max(0, wait) / 1000);
    },
    async fail(keys) {
      const now = Date.now();
      if (entries.size > 100_000) prune(now);
      for (const key of keys) {
        const known = entries.get(key);
        const e =
          known && now - known.lastFailure <= forget ? known : { failures: 0, blockedUntil: 0, lastFailure: now };
        e.failures += 1;
        e.lastFailure = now;
        const delay = delayFor(e.failures, options.freeFailures, maxWait);
        if (delay > 0) e.blockedUntil = now + delay;
        entries.set(key, e);
      }
    },
    async succeed(key) {
      entries.delete(key);
    },
  };
}

// One failure, atomically: count it, set the key's block from the server's clock, renew its lifetime.
const FAIL_SCRIPT = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local over = failures - tonumber(ARGV[1])
if over >= 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local delay = math.min(tonumber(ARGV[2]), 1000 * (2 ^ over))
  redis.call('HSET', KEYS[1], 'blocked_until', now + delay)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return failures`;

export function redisThrottle(redis: Redis, options: ThrottleOptions): Throttle {
  const maxWait = options.maxWaitMs ?? 15 * 60_000;
  const forget = options.forgetAfterMs ?? 60 * 60_000;
  const prefix = options.prefix ?? 'throttle:';
  return {
    async waitSeconds(keys) {
      if (keys.length === 0) return 0;
      const pipeline = redis.multi();
      pipeline.time();
      for (const key of keys) pipeline.hget(prefix + key, 'blocked_until');
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
      const [sec, micro] = results[0]![1] as [string, string];
      const now = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
      let wait = 0;
      for (const [, value] of results.slice(1)) if (value) wait = Math.max(wait, Number(value) - now);
      return Math.ceil(Math.max(0, wait) / 1000);
    },
    async fail(keys) {
      await Promise.all(
        keys.map((key) => redis.eval(FAIL_SCRIPT, 1, prefix + key, options.freeFailures, maxWait, forget)),
      );
    },
    async succeed(key) {
      await redis.del(prefix + key);
    },
  };
}

/**
 * Redis first; while Redis fails, this instance's own memory. An outage then weakens the throttle to one
 * instance's view instead of either refusing every sign-in or letting attempts through unthrottled.
 */
export function withFallback(primary: Throttle, fallback: Throttle, log: Pick<FastifyBaseLogger, 'warn'>): Throttle {
  const attempt = async <T>(run: (t: Throttle) => Promise<T>): Promise<T> => {
    try {
      return await run(primary);
    } catch (err) {
      log.warn({ err }, "throttle store unavailable; using this instance's memory");
      return run(fallback);
    }
  };
  return {
    waitSeconds: (keys) => attempt((t) => t.waitSeconds(keys)),
    async fail(keys) {
      await fallback.fail(keys);
      await attempt((t) => (t === fallback ? Promise.resolve() : t.fail(keys)));
    },
    async succeed(key) {
      await fallback.succeed(key);
      await attempt((t) => (t === fallback ? Promise.resolve() : t.succeed(key)));
    },
  };
}
