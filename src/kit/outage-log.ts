import type { FastifyBaseLogger } from 'fastify';

/**
 * Logs the database going away and coming back, once each, however many requests meet the outage meanwhile:
 * one line per 503 would bury the cause under thousands of copies of it.
 */
export interface OutageLog {
  /** A request or commit could not reach the database. Logged only when the database was thought up. */
  failed(err: unknown): void;
  /** The database answered. Logged only when it was thought down. */
  succeeded(): void;
  readonly down: boolean;
}

export function createOutageLog(log: FastifyBaseLogger): OutageLog {
  let downSince: number | undefined;
  let refused = 0;
  return {
    failed(err) {
      refused++;
      if (downSince !== undefined) return;
      downSince = Date.now();
      refused = 1;
      log.error({ err }, 'database unavailable: answering 503 with Retry-After until it is back');
    },
    succeeded() {
      if (downSince === undefined) return;
      log.warn(
        { downSeconds: Math.round((Date.now() - downSince) / 1000), failures: refused },
        'database available again',
      );
      downSince = undefined;
    },
    get down() {
      return downSince !== undefined;
    },
  };
}
