import type { PageVisit } from '../engine/page-audit.ts';
import type { AuditedPage } from '../result/assemble.ts';
import type { Target } from './frontier.ts';
import { normalizeUrl, sameOrigin } from './normalize.ts';
import { pageIdentity, unvisitedIdentity } from './page-identity.ts';
import type { SiteCrawl } from './site-crawl.ts';

/** What became of a found URL: visited, left out by robots.txt, or already known as a recorded page. */
export type Visit = PageVisit | 'skipped' | 'known';

/**
 * Takes one found URL's visit into the crawl, in the order the URLs were found: a new page is recorded and its
 * links followed; the same page again is merged into the one recorded; a non-HTML answer, a page robots.txt
 * disallows and a found page that redirected off the site are left out.
 */
export async function takeVisit(crawl: SiteCrawl, target: Target, visit: Visit): Promise<void> {
  if (visit === 'skipped') return;
  if (visit === 'known') return mergeKnown(crawl, target);
  const finalUrl = normalizeUrl(visit.url) ?? visit.url;
  crawl.frontier.see(finalUrl);
  if (await leftTheSite(crawl, target, visit)) return;
  if (visit.kind === 'not-html') return;
  const identity = pageIdentity(target.url, finalUrl, visit, crawl.site);
  const earlier = crawl.same.match(identity);
  if (earlier) {
    crawl.same.merge(earlier.page, target.url, earlier.reason);
    // Its links are still followed: a page merged by its canonical URL may link to pages the other does not.
    if (visit.kind === 'audited') crawl.follow(visit.links, target.depth);
    return;
  }
  crawl.same.record(identity, crawl.pages.length);
  crawl.onPage?.({ status: visit.kind, durationMs: visit.durationMs });
  crawl.pages.push(auditedPage(target, visit));
  if (visit.kind === 'failed') return;
  if (visit.llmFacts) crawl.llmFacts.push(visit.llmFacts);
  crawl.follow(visit.links, target.depth);
}

function mergeKnown(crawl: SiteCrawl, target: Target): void {
  const known = crawl.same.match(unvisitedIdentity(target.url));
  if (known) crawl.same.merge(known.page, target.url, known.reason);
}

/**
 * Whether a visit landed off the crawl's site, and so is left out as a link there would have been. The start page
 * is not: when it redirects to another site (http to https, a bare domain to www), the crawl moves there.
 */
async function leftTheSite(crawl: SiteCrawl, target: Target, visit: PageVisit): Promise<boolean> {
  const landed = normalizeUrl(visit.url);
  if (!crawl.settings.enabled || !landed || sameOrigin(landed, crawl.site)) return false;
  if (target.depth > 0) return true;
  if (visit.kind === 'audited') await crawl.moveTo(landed);
  return false;
}

/** The page as the result records it; a failed one has no title and no axe outcome. */
function auditedPage(target: Target, visit: Exclude<PageVisit, { kind: 'not-html' }>): AuditedPage {
  const audited = visit.kind === 'audited';
  return {
    requestedUrl: target.url,
    depth: target.depth,
    url: visit.url,
    httpStatus: visit.httpStatus,
    title: audited ? visit.title : null,
    durationMs: visit.durationMs,
    axe: audited ? visit.axe : null,
    error: audited ? null : visit.error,
    mergedUrls: [],
  };
}
