interface Entry {
  failures: number;
  blockedUntil: number;
  lastFailure: number;
}

const MAX_WAIT_MS = 15 * 60_000;
const FORGET_AFTER_MS = 60 * 60_000;

/**
 * Slows down repeated failed sign-ins, per account and per client address: after `freeFailures`
 * failures each further attempt must wait, doubling from 1 s to 15 min. Kept in memory (one instance's
 * view); a failure-free hour forgets the key.
 */
export class SignInThrottle {
  private readonly freeFailures: number;
  private readonly entries = new Map<string, Entry>();

  constructor(freeFailures: number) {
    this.freeFailures = freeFailures;
  }

  /** Seconds to wait before another attempt is allowed for any of these keys; 0 when allowed now. */
  waitSeconds(keys: string[], now = Date.now()): number {
    let wait = 0;
    for (const key of keys) {
      const e = this.entries.get(key);
      if (!e) continue;
      if (now - e.lastFailure > FORGET_AFTER_MS) {
        this.entries.delete(key);
        continue;
      }
      wait = Math.max(wait, e.blockedUntil - now);
    }
    return Math.ceil(Math.max(0, wait) / 1000);
  }

  fail(keys: string[], now = Date.now()): void {
    if (this.entries.size > 100_000) this.prune(now);
    for (const key of keys) {
      const e = this.entries.get(key) ?? { failures: 0, blockedUntil: 0, lastFailure: now };
      e.failures += 1;
      e.lastFailure = now;
      const over = e.failures - this.freeFailures;
      if (over >= 0) e.blockedUntil = now + Math.min(MAX_WAIT_MS, 1000 * 2 ** over);
      this.entries.set(key, e);
    }
  }

  succeed(key: string): void {
    this.entries.delete(key);
  }

  private prune(now: number): void {
    for (const [key, e] of this.entries) if (now - e.lastFailure > FORGET_AFTER_MS) this.entries.delete(key);
  }
}
