import type { AxeResults } from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import type { LlmPageFacts } from '../llm/facts.ts';
import type { Impact } from '../result/types.ts';
import type { AxeRunner, OmittedElements } from './axe-runner.ts';
import { collectLlmFacts } from './llm-facts.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { REFUSED_HEADER, UNREACHABLE_HEADER, type Refusal } from '../safety/egress-proxy.ts';

export interface PageTiming {
  timeoutMs: number;
  networkIdleMs: number;
  settleMs: number;
}

export interface VisitOptions {
  tags: string[];
  timing: PageTiming;
  /** Collect what LLM assistance needs from the page. */
  llmFacts: boolean;
  /** Elements described at most per rule and outcome; the rest are counted (AUDIT_MAX_ELEMENTS_PER_RULE). */
  maxElementsPerRule: number;
}

export interface RuleRef {
  id: string;
  tags: string[];
}

export interface AxeOutcome {
  violations: AxeResults['violations'];
  incomplete: AxeResults['incomplete'];
  /** Rules that checked at least one element and failed none, with their tags. */
  passed: RuleRef[];
  /** Rules that found nothing to check. */
  inapplicable: RuleRef[];
  /** Elements past `maxElementsPerRule`, per rule. */
  omitted: OmittedElements[];
}

export type PageVisit =
  | {
      kind: 'audited';
      url: string;
      httpStatus: number | null;
      title: string;
      axe: AxeOutcome;
      links: string[];
      /** The absolute URL its `<link rel="canonical">` names, if any. */
      canonical: string | null;
      /** SHA-256 of its document once settled, before axe ran: the same page under two URLs has the same one. */
      fingerprint: string | null;
      llmFacts: LlmPageFacts | null;
      durationMs: number;
    }
  | { kind: 'not-html'; url: string; contentType: string; durationMs: number }
  | { kind: 'failed'; url: string; httpStatus: number | null; error: string; durationMs: number };

/** Each axe rule's own impact, read once from the injected axe: a passed rule has no impact in the results, yet weighs in the score. */
let ruleImpacts: Map<string, Impact | null> | null = null;
export function ruleImpact(ruleId: string): Impact | null {
  return ruleImpacts?.get(ruleId) ?? null;
}

export class PageCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'PageCancelled';
  }
}

/**
 * Loads one page in the audit's context, waits for it to settle (load, network idle with a cap, a short
 * delay), runs axe in every frame with the given tags and reads its title and links. Bounded by
 * `timeoutMs` from navigation to axe's answer; the page is closed when done, timed out or cancelled.
 */
export async function visitPage(
  context: BrowserContext,
  runner: AxeRunner,
  url: string,
  options: VisitOptions,
  refusals: readonly Refusal[],
  signal?: AbortSignal,
): Promise<PageVisit> {
  const { tags, timing } = options;
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  if (signal?.aborted) throw new PageCancelled();
  const refusalsBefore = refusals.length;
  let stop: (reason: 'timeout' | 'cancelled') => void = () => {};
  const stopped = new Promise<'timeout' | 'cancelled'>((resolve) => {
    stop = resolve;
  });
  const timer = setTimeout(() => stop('timeout'), timing.timeoutMs);
  const onAbort = () => stop('cancelled');
  signal?.addEventListener('abort', onAbort, { once: true });
  let httpStatus: number | null = null;
  // Opening the page is bounded by the same clock: a browser going away can leave it unanswered.
  let opened: Page | undefined;
  const opening = context.newPage().then((page) => (opened = page));
  opening.catch(() => {});
  try {
    const work = (async (): Promise<PageVisit> => {
      const page = await opening;
      // No timeout of its own: the visit's time limit (the timer above) bounds it and names the limit; a second clock
      // of the same length here raced it and failed the page with Playwright's wording instead.
      const response = await page.goto(url, { waitUntil: 'load', timeout: 0 });
      if (!response)
        return { kind: 'failed', url, httpStatus: null, error: 'the page gave no answer', durationMs: elapsed() };
      httpStatus = response.status();
      const refused = response.headers()[REFUSED_HEADER];
      if (refused)
        return {
          kind: 'failed',
          url: page.url(),
          httpStatus: null,
          error: decodeURIComponent(refused),
          durationMs: elapsed(),
        };
      const unreachable = response.headers()[UNREACHABLE_HEADER];
      if (unreachable)
        return {
          kind: 'failed',
          url: page.url(),
          httpStatus: null,
          error: `the page could not be loaded (${decodeURIComponent(unreachable)})`,
          durationMs: elapsed(),
        };
      // The status first: a 404 or 503 in plain text (Go's, many proxies' and CDNs') is a broken page, not a skipped non-HTML one.
      if (httpStatus >= 400)
        return {
          kind: 'failed',
          url: page.url(),
          httpStatus,
          error: `the page answered HTTP ${httpStatus}`,
          durationMs: elapsed(),
        };
      const contentType = response.headers()['content-type'] ?? '';
      if (contentType && !/\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType))
        return { kind: 'not-html', url: page.url(), contentType, durationMs: elapsed() };
      await settle(page, timing);
      const { canonical, fingerprint } = await readIdentity(page);
      const results = await runner.run(
        page,
        { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete'] },
        options.maxElementsPerRule,
      );
      if (!ruleImpacts) ruleImpacts = await readRuleImpacts(page);
      const [title, links, llmFacts] = await Promise.all([
        page.title(),
        collectLinks(page),
        options.llmFacts ? collectLlmFacts(page).catch(() => null) : null,
      ]);
      return {
        kind: 'audited',
        url: page.url(),
        httpStatus,
        title,
        links,
        canonical,
        fingerprint,
        llmFacts,
        durationMs: elapsed(),
        axe: {
          violations: results.violations,
          incomplete: results.incomplete,
          passed: results.passes.map(ruleRef),
          inapplicable: results.inapplicable.map(ruleRef),
          omitted: results.omitted ?? [],
        },
      };
    })();
    work.catch(() => {});
    const outcome = await Promise.race([work, stopped]);
    if (outcome === 'cancelled') throw new PageCancelled();
    if (outcome === 'timeout')
      return {
        kind: 'failed',
        url,
        httpStatus,
        error: `the page did not finish loading and auditing within ${Math.round(timing.timeoutMs / 1000)} s`,
        durationMs: elapsed(),
      };
    return outcome;
  } catch (err) {
    if (err instanceof PageCancelled || signal?.aborted) throw new PageCancelled();
    const message = (err as Error).message ?? String(err);
    if (/Download is starting/i.test(message))
      return { kind: 'not-html', url, contentType: 'download', durationMs: elapsed() };
    const refusal = refusals.slice(refusalsBefore)[0];
    return {
      kind: 'failed',
      url,
      httpStatus,
      error: refusal ? refusal.reason : describeNavigationError(message),
      durationMs: elapsed(),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    // A page that opens after its visit was given up is closed when it does; the visit does not wait for that.
    if (opened) await opened.close().catch(() => {});
    else void opening.then((page) => page.close()).catch(() => {});
  }
}

function ruleRef(r: { id: string; tags: string[] }): RuleRef {
  return { id: r.id, tags: r.tags };
}

async function settle(page: Page, timing: PageTiming): Promise<void> {
  if (timing.networkIdleMs > 0)
    await page.waitForLoadState('networkidle', { timeout: timing.networkIdleMs }).catch(() => {});
  if (timing.settleMs > 0) await page.waitForTimeout(timing.settleMs);
}

/**
 * The page's canonical URL and a digest of its document as it stands, to recognise the same page under another URL.
 * A page that cannot tell (it navigated away meanwhile) has neither, and is then never taken for another.
 */
async function readIdentity(page: Page): Promise<{ canonical: string | null; fingerprint: string | null }> {
  const read = await page
    .evaluate(() => {
      // Runs in the page: `href` of a link element is already absolute; rel is a list of tokens, compared ignoring case.
      const doc = (
        globalThis as unknown as {
          document: {
            querySelector(s: string): { href?: unknown } | null;
            documentElement: { outerHTML: string } | null;
          };
        }
      ).document;
      const link = doc.querySelector('head link[rel~="canonical" i][href]');
      return {
        canonical: typeof link?.href === 'string' ? link.href : null,
        html: doc.documentElement?.outerHTML ?? null,
      };
    })
    .catch(() => ({ canonical: null, html: null }));
  return { canonical: read.canonical, fingerprint: read.html === null ? null : sha256Hex(read.html) };
}

async function collectLinks(page: Page): Promise<string[]> {
  // Runs in the page: `href` of an anchor is already absolute.
  return page.$$eval('a[href], area[href]', (elements) =>
    elements.map((e) => (e as unknown as { href: unknown }).href).filter((h): h is string => typeof h === 'string'),
  );
}

async function readRuleImpacts(page: Page): Promise<Map<string, Impact | null>> {
  const pairs = await page
    .evaluate(() => {
      const audit = (globalThis as unknown as { axe?: { _audit?: { rules?: Array<{ id: string; impact?: string }> } } })
        .axe?._audit;
      return (audit?.rules ?? []).map((r) => [r.id, r.impact ?? null] as const);
    })
    .catch(() => [] as Array<readonly [string, string | null]>);
  return new Map(pairs.map(([id, impact]) => [id, (impact ?? null) as Impact | null]));
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
