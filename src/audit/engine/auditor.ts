import axe from 'axe-core';
import type { BrowserContext } from 'playwright-core';
import { crawlPause } from '../crawl/crawl-delay.ts';
import { loadSiteRules, type SiteRules } from '../crawl/site-rules.ts';
import { normalizeUrl, sameOrigin } from '../crawl/normalize.ts';
import { SamePages, type PageIdentity } from '../crawl/same-page.ts';
import { assembleResult, type AuditedPage } from '../result/assemble.ts';
import type { LlmPageFacts } from '../llm/facts.ts';
import type { AuditConfig, AuditResult, LlmOutcome } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../safety/address-policy.ts';
import { openEgressProxy } from '../safety/egress-proxy.ts';
import type { BrowserHost } from './browser-host.ts';
import { AxeRunner } from './axe-runner.ts';
import { PageCancelled, ruleImpact, visitPage, type PageTiming, type PageVisit } from './page-audit.ts';

export interface AuditorOptions {
  host: BrowserHost;
  policy: AddressPolicy;
  timing: PageTiming;
  /** Pages of one crawl audited at a time. */
  pageConcurrency: number;
  /** Elements listed at most per rule, page and outcome (AUDIT_MAX_ELEMENTS_PER_RULE). */
  maxElementsPerRule: number;
  /** LLM assistance over the audited pages' facts; never throws (a failing provider is reported in the outcome). */
  llm?: (facts: LlmPageFacts[], config: AuditConfig, signal?: AbortSignal) => Promise<LlmOutcome>;
  /** Told of each page as it is recorded, audited or failed, also when the audit as a whole then fails (no page audited). */
  onPage?: (page: { status: 'audited' | 'failed'; durationMs: number }) => void;
}

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

interface Target {
  url: string;
  depth: number;
}

/**
 * Audits a URL, or crawls from it: breadth-first over same-origin links and sitemap pages, honouring
 * robots.txt, up to `crawl.depth` link hops and `crawl.maxPages` pages, in one browser context (so a crawl
 * keeps its cookies) whose traffic all goes through the audit's egress proxy.
 */
export async function runAudit(
  url: string,
  config: AuditConfig,
  options: AuditorOptions,
  signal?: AbortSignal,
): Promise<AuditResult> {
  const startedAt = new Date();
  const start = normalizeUrl(url);
  if (!start) throw new AuditFailedError('the URL must be an absolute http or https URL', false);
  try {
    options.policy.checkUrl(new URL(start));
    await options.policy.resolve(new URL(start).hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw new AuditFailedError(err.message, false);
    throw err;
  }
  const proxy = await openEgressProxy(options.policy);
  let context: BrowserContext | null = null;
  let runner: AxeRunner | null = null;
  // An aborted audit lets go of its browser context and its proxy at once, even if a browser call it awaits never returns.
  const onAbort = () => {
    void context?.close().catch(() => {});
    void proxy.close();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    context = await options.host.newContext(proxy.server);
    if (signal?.aborted) throw new AuditCancelledError();
    const maxPages = config.crawl.enabled ? config.crawl.maxPages : 1;
    // The site a crawl stays on: the start page's origin, or the one it redirects to (http to https, a bare
    // domain to www), which is the site the caller means.
    let site = start;
    let rules: SiteRules | null = config.crawl.enabled ? await loadSiteRules(start, options.policy, maxPages) : null;
    const frontier: Target[] = [{ url: start, depth: 0 }];
    const seen = new Set([start]);
    const seed = (from: SiteRules | null) => {
      for (const page of from?.sitemapPages ?? []) {
        if (seen.has(page)) continue;
        seen.add(page);
        frontier.push({ url: page, depth: 1 });
      }
    };
    seed(rules);
    const pages: AuditedPage[] = [];
    // A found URL that is a page already in the result — redirected to it, named canonical, the same document — is
    // that page again: merged into it instead of being audited and counted twice.
    const same = new SamePages();
    const llmFacts: LlmPageFacts[] = [];
    runner = new AxeRunner(context);
    const visitOptions = {
      tags: config.axeTags,
      timing: options.timing,
      llmFacts: config.llm.enabled,
      maxElementsPerRule: options.maxElementsPerRule,
    };
    // A pool, not waves: a new page starts as soon as one finishes, so one slow page does not hold the
    // others' slots idle. Visits are taken in frontier order whatever order they finish in, so pages,
    // links followed and the pages counted against maxPages are those of a plain breadth-first crawl.
    const visits = new Map<number, PageVisit | 'skipped' | 'known'>();
    const inFlight = new Map<number, Promise<void>>();
    let failure: unknown = null;
    let launched = 0;
    let taken = 0;
    // robots.txt's Crawl-delay spaces the starts of pages (requests the crawler chooses to make); pages already
    // loading may overlap. The current rules' delay counts from the last start, so a move to another site's rules applies at once.
    let lastStartAt = Number.NEGATIVE_INFINITY;
    const follow = (links: readonly string[], depth: number) => {
      if (!config.crawl.enabled || depth >= config.crawl.depth) return;
      for (const link of links) {
        const normalized = normalizeUrl(link);
        if (!normalized || seen.has(normalized) || !sameOrigin(normalized, site)) continue;
        seen.add(normalized);
        frontier.push({ url: normalized, depth: depth + 1 });
      }
    };
    const takeInOrder = async () => {
      while (visits.has(taken)) {
        const visit = visits.get(taken)!;
        const target = frontier[taken]!;
        visits.delete(taken);
        taken++;
        if (visit === 'skipped') continue;
        if (visit === 'known') {
          const known = same.match({
            requestedUrl: target.url,
            url: target.url,
            canonical: null,
            fingerprint: null,
            audited: false,
          });
          if (known) same.merge(known.page, target.url, known.reason);
          continue;
        }
        const finalUrl = normalizeUrl(visit.url) ?? visit.url;
        seen.add(finalUrl);
        const landed = normalizeUrl(visit.url);
        if (config.crawl.enabled && landed && !sameOrigin(landed, site)) {
          // A found page that redirected off the site is left out, as a link there would have been.
          if (target.depth > 0) continue;
          if (visit.kind === 'audited') {
            site = landed;
            rules = await loadSiteRules(site, options.policy, maxPages);
            seed(rules);
          }
        }
        if (visit.kind === 'not-html') continue;
        const identity = pageIdentity(target.url, finalUrl, visit, site);
        const earlier = same.match(identity);
        if (earlier) {
          same.merge(earlier.page, target.url, earlier.reason);
          // Its links are still followed: a page merged by its canonical URL may link to pages the other does not.
          if (visit.kind === 'audited') follow(visit.links, target.depth);
          continue;
        }
        same.record(identity, pages.length);
        options.onPage?.({ status: visit.kind, durationMs: visit.durationMs });
        if (visit.kind === 'failed') {
          pages.push({
            requestedUrl: target.url,
            depth: target.depth,
            url: visit.url,
            httpStatus: visit.httpStatus,
            title: null,
            durationMs: visit.durationMs,
            axe: null,
            error: visit.error,
            mergedUrls: [],
          });
          continue;
        }
        pages.push({
          requestedUrl: target.url,
          depth: target.depth,
          url: visit.url,
          httpStatus: visit.httpStatus,
          title: visit.title,
          durationMs: visit.durationMs,
          axe: visit.axe,
          error: null,
          mergedUrls: [],
        });
        if (visit.llmFacts) llmFacts.push(visit.llmFacts);
        follow(visit.links, target.depth);
      }
    };
    for (;;) {
      // Pages started but not yet taken may all count, so never more than maxPages of them.
      while (
        launched < frontier.length &&
        inFlight.size < options.pageConcurrency &&
        pages.length + (launched - taken) < maxPages
      ) {
        const index = launched;
        const target = frontier[index]!;
        // Named canonical by a page already recorded: visiting it could only find that page again.
        if (same.knows(target.url)) {
          launched++;
          visits.set(index, 'known');
          continue;
        }
        if (target.depth > 0 && rules && !rules.allowed(target.url)) {
          launched++;
          visits.set(index, 'skipped');
          continue;
        }
        if (Date.now() < lastStartAt + (rules?.crawlDelayMs ?? 0)) break;
        launched++;
        lastStartAt = Date.now();
        const done = visitPage(context, runner, target.url, visitOptions, proxy.refusals, signal)
          .then(
            (visit) => void visits.set(index, visit),
            (err: unknown) => void (failure ??= err),
          )
          .finally(() => inFlight.delete(index));
        inFlight.set(index, done);
      }
      await takeInOrder();
      if (failure) throw failure;
      if (inFlight.size === 0 && (launched >= frontier.length || pages.length >= maxPages)) break;
      const nextStartAt = lastStartAt + (rules?.crawlDelayMs ?? 0);
      const pause =
        launched < frontier.length && Date.now() < nextStartAt ? crawlPause(nextStartAt - Date.now(), signal) : null;
      if (inFlight.size > 0 || pause) await Promise.race([...inFlight.values(), ...(pause ? [pause.done] : [])]);
      pause?.cancel();
      if (signal?.aborted) throw new AuditCancelledError();
      if (failure) throw failure;
      if (!context.browser()?.isConnected()) throw new AuditFailedError('the browser stopped during the audit', true);
    }
    if (!pages.some((p) => p.axe)) {
      const first = pages[0];
      if (!first) throw new AuditFailedError('the URL did not answer with an HTML page', false);
      throw new AuditFailedError(
        first.error ?? 'the page could not be audited',
        !/^refused|HTTP 4\d\d|ERR_UNSAFE_PORT/.test(first.error ?? ''),
      );
    }
    const browserVersion = context.browser()?.version() ?? '';
    // The browser's part is done: its memory goes back before the (possibly slow) LLM calls.
    await runner.close();
    await context.close().catch(() => {});
    const llm = config.llm.enabled && options.llm ? await options.llm(llmFacts, config, signal) : null;
    if (signal?.aborted) throw new AuditCancelledError();
    const result = assembleResult({
      url,
      config,
      pages: pages.map((page, index) => ({ ...page, mergedUrls: same.mergedInto(index) })),
      ruleImpact,
      engine: {
        axeVersion: axe.version,
        browser: `Chromium ${browserVersion}`.trim(),
        maxElementsPerRule: options.maxElementsPerRule,
      },
      startedAt,
      finishedAt: new Date(),
    });
    return { ...result, llm };
  } catch (err) {
    if (err instanceof PageCancelled || signal?.aborted) throw new AuditCancelledError();
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await context?.close().catch(() => {});
    await proxy.close();
  }
}

/** How the crawl tells this visit's page from the others: a canonical URL counts only when it names a page of the site. */
function pageIdentity(
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
