import type { BrowserContext } from 'playwright-core';
import { crawlPages } from '../crawl/pool.ts';
import { SiteCrawl, type OnPage } from '../crawl/site-crawl.ts';
import type { LlmPageFacts } from '../llm/facts.ts';
import { applyIgnoreRules } from '../ignore/apply.ts';
import { assembleResult } from '../result/assemble.ts';
import type { AuditConfig, AuditResult, LlmOutcome } from '../result/types.ts';
import type { AddressPolicy } from '../../kit/outbound/address-policy.ts';
import type { Refusal } from '../safety/egress-scope.ts';
import { applySessionFields } from '../session/browser-session.ts';
import { secretScrubber, scrubDeep } from '../session/scrub.ts';
import { signIn } from '../session/sign-in.ts';
import type { SecretValues } from '../session/types.ts';
import { AuditCancelledError, AuditFailedError, assertSomePageAudited } from './audit-errors.ts';
import { withAuditBrowser } from './audit-browser.ts';
import { AXE_VERSION, AxeRunner } from './axe-runner.ts';
import type { BrowserHost } from './browser-host.ts';
import { visitPage, type PageTiming } from './page-audit.ts';
import { ruleImpact } from './rule-impacts.ts';
import { auditableStart } from './start-url.ts';

export interface AuditorOptions {
  host: BrowserHost;
  policy: AddressPolicy;
  timing: PageTiming;
  /** Pages of one crawl audited at a time. */
  pageConcurrency: number;
  /** Elements listed at most per rule, page and outcome (AUDIT_MAX_ELEMENTS_PER_RULE). */
  maxElementsPerRule: number;
  /** Longest the deep checks may take on one page (AUDIT_DEEP_BUDGET_SECONDS); default 60 s. */
  deepBudgetMs?: number;
  /** LLM assistance over the audited pages' facts; never throws (a failing provider is reported in the outcome). */
  llm?: (facts: LlmPageFacts[], config: AuditConfig, signal?: AbortSignal) => Promise<LlmOutcome>;
  /** Told of each page as it is recorded, audited or failed, also when the audit as a whole then fails (no page audited). */
  onPage?: OnPage;
}

const NO_SECRETS: SecretValues = new Map();

/**
 * Audits a URL, or crawls from it: breadth-first over same-origin links and sitemap pages, honouring
 * robots.txt, up to `crawl.depth` link hops and `crawl.maxPages` pages, in one browser context (so a crawl
 * keeps its cookies) whose traffic all goes through the audit's egress proxy. With a session, its cookies and
 * headers are given to the context and its sign-in steps run first; `secrets` holds the values it names, and the
 * result and any error are scrubbed of them.
 */
export async function runAudit(
  url: string,
  config: AuditConfig,
  options: AuditorOptions,
  signal?: AbortSignal,
  secrets: SecretValues = NO_SECRETS,
): Promise<AuditResult> {
  const scrub = secretScrubber(secrets.values());
  try {
    return scrubDeep(await auditSite(url, config, options, signal, secrets, scrub), scrub);
  } catch (err) {
    throw scrubbedError(err, scrub);
  }
}

async function auditSite(
  url: string,
  config: AuditConfig,
  options: AuditorOptions,
  signal: AbortSignal | undefined,
  secrets: SecretValues,
  scrub: (text: string) => string,
): Promise<AuditResult> {
  const startedAt = new Date();
  const start = await auditableStart(url, options.policy);
  return withAuditBrowser(options.host, options.policy, signal, async (context, refusals) => {
    const crawl = await SiteCrawl.begin(start, config.crawl, options.policy, options.onPage, config.session);
    if (config.session) {
      await applySessionFields(context, config.session, start, secrets);
      await signIn(context, config.session.steps, secrets, options.timing, refusals, signal);
    }
    const browserVersion = await auditPages(context, refusals, crawl, config, options, signal);
    // A page may show what the sign-in typed; the provider is a third party and never gets a secret either.
    const llm =
      config.llm.enabled && options.llm ? await options.llm(scrubDeep(crawl.llmFacts, scrub), config, signal) : null;
    if (signal?.aborted) throw new AuditCancelledError();
    const finishedAt = new Date();
    const result = assembleResult({
      url,
      config,
      pages: crawl.pages.map((page, index) => ({ ...page, mergedUrls: crawl.same.mergedInto(index) })),
      ruleImpact,
      engine: {
        axeVersion: AXE_VERSION,
        browser: `Chromium ${browserVersion}`.trim(),
        maxElementsPerRule: options.maxElementsPerRule,
      },
      startedAt,
      finishedAt,
    });
    return applyIgnoreRules({ ...result, llm }, config.ignore ?? [], finishedAt);
  });
}

/**
 * The browser's part: visits the crawl's pages, fails the audit when none could be audited, then closes the
 * context so its memory goes back before the (possibly slow) LLM calls. Answers the browser's version.
 */
async function auditPages(
  context: BrowserContext,
  refusals: readonly Refusal[],
  crawl: SiteCrawl,
  config: AuditConfig,
  options: AuditorOptions,
  signal: AbortSignal | undefined,
): Promise<string> {
  const runner = new AxeRunner(context);
  const visitOptions = {
    tags: config.axeTags,
    timing: options.timing,
    llmFacts: config.llm.enabled,
    maxElementsPerRule: options.maxElementsPerRule,
    deepBudgetMs: config.deep ? (options.deepBudgetMs ?? 60_000) : 0,
    bestPractices: config.bestPractices === true,
  };
  await crawlPages(crawl, {
    concurrency: options.pageConcurrency,
    visit: (pageUrl) => visitPage(context, runner, pageUrl, visitOptions, refusals, signal),
    browserConnected: () => context.browser()?.isConnected() === true,
    signal,
  });
  assertSomePageAudited(crawl.pages);
  const browserVersion = context.browser()?.version() ?? '';
  await runner.close();
  await context.close().catch(() => {});
  return browserVersion;
}

/** An error on its way to a job's row, an answer or a log, without the secrets' values. */
function scrubbedError(err: unknown, scrub: (text: string) => string): unknown {
  if (err instanceof AuditCancelledError || !(err instanceof Error)) return err;
  const message = scrub(err.message);
  if (err instanceof AuditFailedError) return new AuditFailedError(message, err.retryable);
  if (message === err.message && scrub(err.stack ?? '') === err.stack) return err;
  const clean = new Error(message);
  clean.name = err.name;
  clean.stack = scrub(err.stack ?? '');
  return clean;
}
