import axe from 'axe-core';
import type { BrowserContext } from 'playwright-core';
import { loadSiteRules, type SiteRules } from '../crawl/site-rules.ts';
import { normalizeUrl, sameOrigin } from '../crawl/normalize.ts';
import { assembleResult, type AuditedPage } from '../result/assemble.ts';
import type { LlmPageFacts } from '../llm/facts.ts';
import type { AuditConfig, AuditResult, LlmOutcome } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../safety/address-policy.ts';
import { openEgressProxy } from '../safety/egress-proxy.ts';
import type { BrowserHost } from './browser-host.ts';
import { PageCancelled, ruleImpact, visitPage, type PageTiming } from './page-audit.ts';

export interface AuditorOptions {
  host: BrowserHost;
  policy: AddressPolicy;
  timing: PageTiming;
  /** Pages of one crawl audited at a time. */
  pageConcurrency: number;
  /** LLM assistance over the audited pages' facts; never throws (a failing provider is reported in the outcome). */
  llm?: (facts: LlmPageFacts[], config: AuditConfig, signal?: AbortSignal) => Promise<LlmOutcome>;
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
export async function runAudit(url: string, config: AuditConfig, options: AuditorOptions, signal?: AbortSignal): Promise<AuditResult> {
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
  const onAbort = () => void context?.close().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    context = await options.host.newContext(proxy.server);
    if (signal?.aborted) throw new AuditCancelledError();
    const maxPages = config.crawl.enabled ? config.crawl.maxPages : 1;
    const rules: SiteRules | null = config.crawl.enabled ? await loadSiteRules(start, options.policy, maxPages) : null;
    const frontier: Target[] = [{ url: start, depth: 0 }];
    const seen = new Set([start]);
    for (const page of rules?.sitemapPages ?? []) {
      if (seen.has(page)) continue;
      seen.add(page);
      frontier.push({ url: page, depth: 1 });
    }
    const pages: AuditedPage[] = [];
    const llmFacts: LlmPageFacts[] = [];
    let next = 0;
    while (next < frontier.length && pages.length < maxPages) {
      const wave: Target[] = [];
      while (next < frontier.length && wave.length < Math.min(options.pageConcurrency, maxPages - pages.length)) {
        const target = frontier[next++]!;
        if (target.depth > 0 && rules && !rules.allowed(target.url)) continue;
        wave.push(target);
      }
      const visits = await Promise.all(wave.map((t) => visitPage(context!, t.url, { tags: config.axeTags, timing: options.timing, llmFacts: config.llm.enabled }, proxy.refusals, signal)));
      visits.forEach((visit, i) => {
        const target = wave[i]!;
        const finalUrl = normalizeUrl(visit.url) ?? visit.url;
        seen.add(finalUrl);
        if (visit.kind === 'not-html') return;
        if (visit.kind === 'failed') {
          pages.push({ requestedUrl: target.url, depth: target.depth, url: visit.url, httpStatus: visit.httpStatus, title: null, durationMs: visit.durationMs, axe: null, error: visit.error });
          return;
        }
        pages.push({ requestedUrl: target.url, depth: target.depth, url: visit.url, httpStatus: visit.httpStatus, title: visit.title, durationMs: visit.durationMs, axe: visit.axe, error: null });
        if (visit.llmFacts) llmFacts.push(visit.llmFacts);
        if (!config.crawl.enabled || target.depth >= config.crawl.depth) return;
        for (const link of visit.links) {
          const normalized = normalizeUrl(link);
          if (!normalized || seen.has(normalized) || !sameOrigin(normalized, start)) continue;
          seen.add(normalized);
          frontier.push({ url: normalized, depth: target.depth + 1 });
        }
      });
      if (!context.browser()?.isConnected()) throw new AuditFailedError('the browser stopped during the audit', true);
    }
    if (!pages.some((p) => p.axe)) {
      const first = pages[0];
      if (!first) throw new AuditFailedError('the URL did not answer with an HTML page', false);
      throw new AuditFailedError(first.error ?? 'the page could not be audited', !/^refused|HTTP 4\d\d/.test(first.error ?? ''));
    }
    const browserVersion = context.browser()?.version() ?? '';
    // The browser's part is done: its memory goes back before the (possibly slow) LLM calls.
    await context.close().catch(() => {});
    const llm = config.llm.enabled && options.llm ? await options.llm(llmFacts, config, signal) : null;
    if (signal?.aborted) throw new AuditCancelledError();
    const result = assembleResult({
      url,
      config,
      pages,
      ruleImpact,
      engine: { axeVersion: axe.version, browser: `Chromium ${browserVersion}`.trim() },
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
