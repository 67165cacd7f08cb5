/**
 * Which uses of a credential to write to its last_used_at: the first, then at most one a minute. A token endpoint busy
 * with one credential (a service's API key, an app's secret) would otherwise update the same row on every request, each
 * update a commit that waits for the row lock the one before holds (issue 14: an API-key token cost PostgreSQL ~1 ms).
 * Per process; the recorded time is at most a minute old.
 */
export class LastUseWrites {
  private readonly written = new Map<string, number>();
  private readonly intervalMs: number;

  constructor(intervalMs = 60_000) {
    this.intervalMs = intervalMs;
  }

  /** Whether this use of `id` should be written; remembered as written when so. */
  due(id: string, now = Date.now()): boolean {
    const last = this.written.get(id);
    if (last !== undefined && now - last < this.intervalMs) return false;
    // Bounded: forgetting only means one more write.
    if (this.written.size >= 100_000) this.written.clear();
    this.written.set(id, now);
    return true;
  }
}
