import robotsParserModule from 'robots-parser';
import { AUDIT_USER_AGENT_TOKEN } from '../engine/browser-host.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { safeFetchText } from '../safety/safe-fetch.ts';
import { crawlDelayMs, withStrictCrawlDelays } from './crawl-delay.ts';
import { normalizeUrl, sameOrigin } from './normalize.ts';
import { parseSitemap } from './sitemap.ts';

// The package is CommonJS whose module.exports is the function; its types describe an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const FETCH = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 };
/** Sitemaps read at most per crawl (indexes included), so a sitemap index cannot make a crawl read thousands. */
const MAX_SITEMAPS = 20;

export interface SiteRules {
  /** Whether robots.txt lets this crawler fetch the URL (true when there is no robots.txt). */
  allowed(url: string): boolean;
  /** Same-origin page URLs from the site's sitemaps, normalised, in sitemap order, at most `limit`. */
  sitemapPages: string[];
  /** Least time between the starts of two pages of the crawl: robots.txt's Crawl-delay, capped; 0 when none. */
  crawlDelayMs: number;
}

/** robots.txt and the sitemaps it names (or /sitemap.xml), read through the same address policy as the browser. */
export async function loadSiteRules(startUrl: string, policy: AddressPolicy, limit: number): Promise<SiteRules> {
  const origin = new URL(startUrl).origin;
  const robotsUrl = `${origin}/robots.txt`;
  const robotsText = await safeFetchText(robotsUrl, policy, FETCH);
  // Crawl-delay values robots-parser would read too freely (hex, exponents) are made malformed first: no delay.
  const robots =
    robotsText && robotsText.status === 200 ? robotsParser(robotsUrl, withStrictCrawlDelays(robotsText.body)) : null;
  const declared = robots?.getSitemaps() ?? [];
  const queue = declared.length > 0 ? [...declared] : [`${origin}/sitemap.xml`];
  const seenSitemaps = new Set<string>();
  const pages: string[] = [];
  const seenPages = new Set<string>();
  while (queue.length > 0 && seenSitemaps.size < MAX_SITEMAPS && pages.length < limit) {
    const next = normalizeUrl(queue.shift()!, origin);
    if (!next || seenSitemaps.has(next) || !sameOrigin(next, origin)) continue;
    seenSitemaps.add(next);
    const fetched = await safeFetchText(next, policy, FETCH);
    if (fetched?.status !== 200) continue;
    const parsed = parseSitemap(fetched.body);
    queue.push(...parsed.sitemaps);
    for (const loc of parsed.pages) {
      const page = normalizeUrl(loc, origin);
      if (!page || !sameOrigin(page, origin) || seenPages.has(page)) continue;
      seenPages.add(page);
      pages.push(page);
      if (pages.length >= limit) break;
    }
  }
  return {
    allowed: (url) => (robots ? robots.isAllowed(url, AUDIT_USER_AGENT_TOKEN) !== false : true),
    sitemapPages: pages,
    crawlDelayMs: crawlDelayMs(robots?.getCrawlDelay(AUDIT_USER_AGENT_TOKEN)),
  };
}
