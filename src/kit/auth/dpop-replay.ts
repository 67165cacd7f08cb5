import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { sha256Hex } from '../crypto.ts';

/** The DPoP proof ids (`<jkt>:<jti>`) a resource server has seen, each remembered until `untilMs` (epoch milliseconds). */
export interface ProofIds {
  /** True the first time `key` is offered before its expiry, false for a replay. */
  firstSeen(key: string, untilMs: number): Promise<boolean>;
}

/** This process's memory: at most `max` ids, the oldest inserted dropped first (ids arrive roughly in expiry order). */
export function memoryProofIds(max = 100_000): ProofIds {
  const entries = new Map<string, number>();
  return {
    async firstSeen(key, untilMs) {
      const now = Date.now();
      const until = entries.get(key);
      if (until !== undefined && until > now) return false;
      entries.delete(key);
      entries.set(key, untilMs);
      for (const [k, u] of entries) {
        if (u > now && entries.size <= max) break;
        entries.delete(k);
      }
      return true;
    },
  };
}

/**
 * Shared by every instance through Redis (`SET NX` with the id's expiry), so a proof replayed to another instance is
 * caught too. Each id is also kept in this process's memory, which alone decides while Redis does not answer: a replay
 * to the same instance is still caught then, one to another instance is not (logged).
 */
export function redisProofIds(
  redis: Redis,
  prefix: string,
  log: Pick<FastifyBaseLogger, 'warn'>,
  local: ProofIds = memoryProofIds(),
): ProofIds {
  return {
    async firstSeen(key, untilMs) {
      if (!(await local.firstSeen(key, untilMs))) return false;
      const ttl = Math.max(1, untilMs - Date.now());
      try {
        return (await redis.set(`${prefix}${sha256Hex(key)}`, '1', 'PX', ttl, 'NX')) === 'OK';
      } catch (err) {
        log.warn({ err }, "DPoP replay store unavailable: proofs are checked against this instance's memory only");
        return true;
      }
    },
  };
}
