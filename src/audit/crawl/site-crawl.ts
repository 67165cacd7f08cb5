import type { Link } from '../engine/page-reads.ts';
import type { LlmPageFacts } from '../llm/facts.ts';
import type { AuditedPage } from '../result/assemble.ts';
import type { AuditConfig } from '../result/types.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { signOutFilter } from '../session/sign-out.ts';
import type { SessionConfig } from '../session/types.ts';
import { Frontier, type Target } from './frontier.ts';
import { normalizeUrl, sameOrigin } from './normalize.ts';
import { SamePages } from './same-page.ts';
import { loadSiteRules, type SiteRules } from './site-rules.ts';

/** Told of each page as it is recorded, audited or failed. */
export type OnPage = (page: { status: 'audited' | 'failed'; durationMs: number }) => void;

/**
 * What one audit's crawl knows as it goes: the site it stays on and that site's robots.txt and sitemaps, the
 * URLs found, the pages recorded (with the URLs merged into each) and their facts for LLM assistance. An audit
 * of one page is a crawl that stops at its first page and reads no robots.txt.
 */
export class SiteCrawl {
  readonly settings: AuditConfig['crawl'];
  /** Pages recorded at most: `crawl.maxPages`, or 1 without crawling. */
  readonly maxPages: number;
  readonly frontier: Frontier;
  readonly pages: AuditedPage[] = [];
  /**
   * A found URL that is a page already in the result — redirected to it, named canonical, the same document — is
   * that page again: merged into it instead of being audited and counted twice.
   */
  readonly same = new SamePages();
  readonly llmFacts: LlmPageFacts[] = [];
  readonly onPage: OnPage | undefined;
  /**
   * The site the crawl stays on: the start page's origin, or the one it redirects to (http to https, a bare
   * domain to www), which is the site the caller means.
   */
  site: string;
  rules: SiteRules | null = null;
  readonly #policy: AddressPolicy;
  /** With a session, links that would sign out are never followed. */
  readonly #signsOut: (link: Link) => boolean;

  private constructor(
    start: string,
    settings: AuditConfig['crawl'],
    policy: AddressPolicy,
    onPage: OnPage | undefined,
    session: SessionConfig | null | undefined,
  ) {
    this.settings = settings;
    this.maxPages = settings.enabled ? settings.maxPages : 1;
    this.frontier = new Frontier(start);
    this.site = start;
    this.#policy = policy;
    this.onPage = onPage;
    this.#signsOut = signOutFilter(session);
  }

  /** A crawl from `start`, with the site's rules read and its sitemap pages queued when crawling; with a session, never signing out. */
  static async begin(
    start: string,
    settings: AuditConfig['crawl'],
    policy: AddressPolicy,
    onPage?: OnPage,
    session?: SessionConfig | null,
  ): Promise<SiteCrawl> {
    const crawl = new SiteCrawl(start, settings, policy, onPage, session);
    if (settings.enabled) await crawl.moveTo(start);
    return crawl;
  }

  /** The crawl stays on `site` from now on, under its robots.txt, with its sitemap pages queued one hop away. */
  async moveTo(site: string): Promise<void> {
    this.site = site;
    this.rules = await loadSiteRules(site, this.#policy, this.maxPages);
    for (const page of this.rules.sitemapPages) this.frontier.add(page, 1);
  }

  /** Queues the same-site links of a page found at `depth`, while the crawl may go deeper. */
  follow(links: readonly Link[], depth: number): void {
    if (!this.settings.enabled || depth >= this.settings.depth) return;
    for (const link of links) {
      if (this.#signsOut(link)) continue;
      const normalized = normalizeUrl(link.url);
      if (normalized && sameOrigin(normalized, this.site)) this.frontier.add(normalized, depth + 1);
    }
  }

  /** Whether robots.txt lets the crawl visit a found page; the start page is always visited. */
  allows(target: Target): boolean {
    return target.depth === 0 || !this.rules || this.rules.allowed(target.url);
  }

  /** Least time between the starts of two pages: the current site's Crawl-delay. */
  get crawlDelayMs(): number {
    return this.rules?.crawlDelayMs ?? 0;
  }
}
