import type { AuditedPage } from '../result/assemble.ts';

/** An audit that produced no result. `retryable` is false when trying again cannot help (a refused address). */
export class AuditFailedError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'AuditFailedError';
    this.retryable = retryable;
  }
}

export class AuditCancelledError extends Error {
  constructor() {
    super('the audit was cancelled');
    this.name = 'AuditCancelledError';
  }
}

/**
 * An audit with no page that axe checked has no result: it fails with its first page's error. Trying again can
 * help unless the address was refused, the page is a 4xx or the browser will never connect to its port.
 */
export function assertSomePageAudited(pages: readonly AuditedPage[]): void {
  if (pages.some((p) => p.axe)) return;
  const first = pages[0];
  if (!first) throw new AuditFailedError('the URL did not answer with an HTML page', false);
  throw new AuditFailedError(
    first.error ?? 'the page could not be audited',
    !/^refused|HTTP 4\d\d|ERR_UNSAFE_PORT/.test(first.error ?? ''),
  );
}
