import { DataSourceError } from './driver.ts';

/** How long past the server-side timeout the service waits before cancelling a query itself (a backstop). */
const BACKSTOP_MS = 2_000;
/** How long a cancelled query gets to report back before its connection is given up on. */
const CANCEL_GRACE_MS = 5_000;

export interface GuardedRun<T> {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Cancels the statement in the database (pg_cancel_backend, KILL QUERY). */
  cancel: () => Promise<void>;
  run: () => Promise<T>;
}

/**
 * Runs a query so that it ends in the database, not only in this process, when the client goes away or the timeout
 * passes. The server-side timeout (statement_timeout, max_statement_time) normally fires first; the backstop covers a
 * session that changed its own limit. After a cancel the query is awaited for a grace period so the error it ends
 * with is the one reported; if the database does not answer by then, the run is rejected and the caller drops the
 * connection.
 */
export function guardRun<T>(g: GuardedRun<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let reason: 'timeout' | 'cancelled' | undefined;
    let grace: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'cancelled') => {
      if (reason) return;
      reason = why;
      g.cancel().catch(() => {});
      grace = setTimeout(() => finish(() => reject(failure())), CANCEL_GRACE_MS);
    };
    const failure = () =>
      reason === 'timeout'
        ? new DataSourceError(
            'timeout',
            `the query ran longer than the data source's timeout of ${g.timeoutMs / 1000} s and was cancelled`,
          )
        : new DataSourceError('cancelled', 'the query was cancelled because the client went away');
    const onAbort = () => stop('cancelled');
    const timer = setTimeout(() => stop('timeout'), g.timeoutMs + BACKSTOP_MS);
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      g.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (g.signal?.aborted) {
      clearTimeout(timer);
      reject(new DataSourceError('cancelled', 'the query was cancelled because the client went away'));
      return;
    }
    g.signal?.addEventListener('abort', onAbort, { once: true });
    g.run().then(
      (value) => finish(() => (reason ? reject(failure()) : resolve(value))),
      (err) => finish(() => reject(reason ? failure() : err)),
    );
  });
}
