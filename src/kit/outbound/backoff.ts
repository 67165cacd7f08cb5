export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * Delay before attempt `attempts + 1`: exponential (base × 2^(attempts−1), capped) with "equal jitter" — a random
 * point in the upper half — so instances and destinations that failed together do not retry in lockstep.
 * A vendor's Retry-After is a floor: never sooner than it asked.
 */
export function retryDelayMs(
  attempts: number,
  policy: BackoffPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
