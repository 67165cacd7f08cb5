import type { Refusal } from '../safety/egress-scope.ts';
import type { PageVisit } from './page-audit.ts';

/**
 * A visit that threw, as its outcome: a download is a non-HTML answer; anything else a failed page, named by the
 * egress proxy's refusal when it refused the page's request, else by the browser's navigation error.
 */
export function visitFailure(
  err: unknown,
  url: string,
  httpStatus: number | null,
  refusal: Refusal | undefined,
  durationMs: number,
): PageVisit {
  const message = (err as Error).message ?? String(err);
  if (/Download is starting/i.test(message)) return { kind: 'not-html', url, contentType: 'download', durationMs };
  return {
    kind: 'failed',
    url,
    httpStatus,
    error: refusal ? refusal.reason : describeNavigationError(message),
    durationMs,
  };
}

/** Playwright's navigation errors, shortened to what a person needs ("net::ERR_NAME_NOT_RESOLVED at …" and its call log dropped). */
function describeNavigationError(message: string): string {
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  // Browsers never connect to some ports (0, and SMTP's, IRC's, X11's… — the Fetch standard's "bad ports"):
  // say so, since "could not be loaded" alone suggests the site is down and trying later might help.
  if (net?.[1] === 'ERR_UNSAFE_PORT')
    return 'the page could not be loaded (ERR_UNSAFE_PORT): browsers refuse to connect to this port, so it cannot be audited';
  if (net) return `the page could not be loaded (${net[1]})`;
  const first = message.split('\n')[0]!.replace(/^page\.goto:\s*/, '');
  return `the page could not be loaded: ${first}`.slice(0, 500);
}
