import type { PageVisit } from '../engine/page-audit.ts';
import { normalizeUrl, sameOrigin } from './normalize.ts';
import type { PageIdentity } from './same-page.ts';

/** How the crawl tells this visit's page from the others: a canonical URL counts only when it names a page of the site. */
export function pageIdentity(
  requestedUrl: string,
  url: string,
  visit: Exclude<PageVisit, { kind: 'not-html' }>,
  site: string,
): PageIdentity {
  if (visit.kind === 'failed') return { requestedUrl, url, canonical: null, fingerprint: null, audited: false };
  const canonical = visit.canonical === null ? null : normalizeUrl(visit.canonical);
  return {
    requestedUrl,
    url,
    canonical: canonical && sameOrigin(canonical, site) ? canonical : null,
    fingerprint: visit.fingerprint,
    audited: true,
  };
}

/** A URL not visited, because a recorded page names it canonical: only its URL can match. */
export function unvisitedIdentity(url: string): PageIdentity {
  return { requestedUrl: url, url, canonical: null, fingerprint: null, audited: false };
}
