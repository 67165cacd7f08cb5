import type { Page, Response } from 'playwright-core';
import { REFUSED_HEADER, UNREACHABLE_HEADER } from '../safety/egress-scope.ts';
import type { PageVisit } from './page-audit.ts';

/**
 * Documents audited like pages: HTML, XHTML and SVG. A browser renders an SVG document served as `image/svg+xml`
 * on its own, with its links, text and focusable elements, so axe checks it as it checks a page.
 */
const AUDITABLE_TYPES = /\b(text\/html|application\/xhtml\+xml|image\/svg\+xml)\b/i;

/**
 * A navigation's answer that is no page to audit, as the visit's outcome: refused by the egress proxy, the site
 * unreachable, an HTTP error, or a document that is neither HTML nor SVG; null for a document to audit.
 */
export function unauditableAnswer(response: Response, page: Page, durationMs: () => number): PageVisit | null {
  const httpStatus = response.status();
  const headers = response.headers();
  const failed = (error: string, status: number | null = null): PageVisit => ({
    kind: 'failed',
    url: answeredUrl(response, page),
    httpStatus: status,
    error,
    durationMs: durationMs(),
  });
  const refused = headers[REFUSED_HEADER];
  if (refused) return failed(decodeURIComponent(refused));
  const unreachable = headers[UNREACHABLE_HEADER];
  if (unreachable) return failed(`the page could not be loaded (${decodeURIComponent(unreachable)})`);
  // The status first: a 404 or 503 in plain text (Go's, many proxies' and CDNs') is a broken page, not a skipped non-HTML one.
  if (httpStatus >= 400) return failed(`the page answered HTTP ${httpStatus}`, httpStatus);
  const contentType = headers['content-type'] ?? '';
  if (contentType && !AUDITABLE_TYPES.test(contentType))
    return { kind: 'not-html', url: page.url(), contentType, durationMs: durationMs() };
  return null;
}

/**
 * page.goto's answer. Debian's Chromium (156) replaces an empty 4xx/5xx answer with its own error page and fails
 * the navigation (ERR_HTTP_RESPONSE_CODE_FAILURE), where the npm fallback's headless-shell build (153) shows it: the
 * answer came either way, so it is handed on for unauditableAnswer to judge alike on both (an empty 404 is the
 * site's 404, not a network failure to retry; an empty 403 from the egress proxy is its refusal).
 */
export async function navigate(page: Page, url: string, timeout: number): Promise<Response | null> {
  let last: Response | null = null;
  const onResponse = (response: Response) => {
    if (response.request().isNavigationRequest() && response.request().frame() === page.mainFrame()) last = response;
  };
  page.on('response', onResponse);
  try {
    return await page.goto(url, { waitUntil: 'load', timeout });
  } catch (err) {
    const answer = last as Response | null;
    if (answer && answer.status() >= 400 && /net::ERR_HTTP_RESPONSE_CODE_FAILURE/.test((err as Error).message))
      return answer;
    throw err;
  } finally {
    page.off('response', onResponse);
  }
}

/** Where the answer came from: the page's URL, unless the page is Chromium's own error page (or still blank) instead. */
function answeredUrl(response: Response, page: Page): string {
  const url = page.url();
  return /^https?:/.test(url) ? url : response.url();
}
