import type { AxeResults } from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import type { LlmPageFacts } from '../llm/facts.ts';
import type { Refusal } from '../safety/egress-scope.ts';
import type { AxeRunner, CappedResults, OmittedElements } from './axe-runner.ts';
import { AUTOPLAY_PROBE } from './checks/audio-control.ts';
import { ORIENTATION_PROBE } from './checks/orientation.ts';
import { runBrowserChecks } from './checks/run-checks.ts';
import { shootFailures } from './checks/element-shots.ts';
import { collectLlmFacts } from './llm-facts.ts';
import { navigate, unauditableAnswer } from './page-answer.ts';
import { openVisitPage, visitDeadline } from './page-bounds.ts';
import { collectLinks, readIdentity, settle, type Link } from './page-reads.ts';
import { learnRuleImpacts } from './rule-impacts.ts';
import { visitFailure } from './visit-failure.ts';

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
  /** Run the deep checks after axe, within this many milliseconds more; 0 runs none. */
  deepBudgetMs: number;
  /** Run axe's best-practice rules too, kept apart from the WCAG outcome. */
  bestPractices: boolean;
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
  /** axe's best-practice rules, when asked for: never part of the WCAG outcome above. */
  bestPractice?: { violations: AxeResults['violations']; passed: RuleRef[] };
  /** Milliseconds each deep check took, when the audit was deep. */
  deepTimings?: Record<string, number>;
  /** A deep audit's screenshots of failing elements, `data:` URIs by rule and selector (element-shots.ts). */
  screenshots?: Record<string, string>;
}

export type PageVisit =
  | {
      kind: 'audited';
      url: string;
      httpStatus: number | null;
      title: string;
      axe: AxeOutcome;
      links: Link[];
      /** The absolute URL its `<link rel="canonical">` names, if any. */
      canonical: string | null;
      /** SHA-256 of its document once settled, before axe ran: the same page under two URLs has the same one. */
      fingerprint: string | null;
      llmFacts: LlmPageFacts | null;
      durationMs: number;
    }
  | { kind: 'not-html'; url: string; contentType: string; durationMs: number }
  | { kind: 'failed'; url: string; httpStatus: number | null; error: string; durationMs: number };

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
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (signal?.aborted) throw new PageCancelled();
  const refusalsBefore = refusals.length;
  const deadline = visitDeadline(options.timing.timeoutMs + options.deepBudgetMs, signal, started);
  const answer: Answer = { httpStatus: null };
  const opening = openVisitPage(context);
  try {
    const work = loadAndAudit(opening.page, url, runner, options, answer, elapsed);
    work.catch(() => {});
    const outcome = await Promise.race([work, deadline.stopped]);
    if (outcome === 'cancelled') throw new PageCancelled();
    if (outcome === 'timeout')
      return {
        kind: 'failed',
        url,
        httpStatus: answer.httpStatus,
        error: `the page did not finish loading and auditing within ${Math.round(options.timing.timeoutMs / 1000)} s`,
        durationMs: elapsed(),
      };
    return outcome;
  } catch (err) {
    if (err instanceof PageCancelled || signal?.aborted) throw new PageCancelled();
    return visitFailure(err, url, answer.httpStatus, refusals.slice(refusalsBefore)[0], elapsed());
  } finally {
    deadline.clear();
    await opening.close();
  }
}

/** What the visit learnt of the page's answer, for the outcome of a visit stopped or failed after it came. */
interface Answer {
  httpStatus: number | null;
}

/** Navigates, and audits the page when its answer is an HTML page. */
async function loadAndAudit(
  opening: Promise<Page>,
  url: string,
  runner: AxeRunner,
  options: VisitOptions,
  answer: Answer,
  elapsed: () => number,
): Promise<PageVisit> {
  const page = await opening;
  if (options.deepBudgetMs > 0) {
    // Before the page's own scripts: an orientation lock or a play() is only seen when it is asked for, and motion on load only
    // shows whether it honours the preference if the page loads with it.
    await page.addInitScript(ORIENTATION_PROBE);
    await page.addInitScript(AUTOPLAY_PROBE);
    await page.emulateMedia({ reducedMotion: 'reduce' });
  }
  // No timeout of its own: the visit's time limit (the deadline) bounds it and names the limit; a second clock
  // of the same length here raced it and failed the page with Playwright's wording instead.
  const response = await navigate(page, url, 0);
  if (!response)
    return { kind: 'failed', url, httpStatus: null, error: 'the page gave no answer', durationMs: elapsed() };
  answer.httpStatus = response.status();
  return unauditableAnswer(response, page, elapsed) ?? auditPage(page, runner, options, answer.httpStatus, elapsed);
}

/** A settled page's audit: its identity, axe's outcome, its title, links and (when asked) facts for LLM assistance. */
async function auditPage(
  page: Page,
  runner: AxeRunner,
  options: VisitOptions,
  httpStatus: number,
  elapsed: () => number,
): Promise<PageVisit> {
  await settle(page, options.timing);
  const { canonical, fingerprint } = await readIdentity(page);
  const tags = options.bestPractices ? [...options.tags, 'best-practice'] : options.tags;
  const all = await runner.run(
    page,
    { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete'] },
    options.maxElementsPerRule,
  );
  const { wcag: results, bestPractice } = splitBestPractice(all, options.tags);
  await learnRuleImpacts(page);
  const [title, links, llmFacts] = await Promise.all([
    page.title(),
    collectLinks(page),
    options.llmFacts ? collectLlmFacts(page).catch(() => null) : null,
  ]);
  const deep =
    options.deepBudgetMs > 0
      ? await runBrowserChecks(page, options.tags, options.deepBudgetMs, options.maxElementsPerRule)
      : null;
  const violations = [...results.violations, ...(deep?.violations ?? [])];
  // Within the deep budget's last share: the checks end by 80 % of it, pictures are a bonus.
  const screenshots = deep ? await shootFailures(page, violations, Date.now() + options.deepBudgetMs * 0.2) : null;
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
      violations,
      incomplete: [...results.incomplete, ...(deep?.incomplete ?? [])],
      passed: [...results.passes.map(ruleRef), ...(deep?.passed ?? [])],
      inapplicable: [...results.inapplicable.map(ruleRef), ...(deep?.inapplicable ?? [])],
      omitted: results.omitted ?? [],
      ...(bestPractice ? { bestPractice } : {}),
      ...(deep ? { deepTimings: deep.timings } : {}),
      ...(screenshots ? { screenshots } : {}),
    },
  };
}

/**
 * Takes axe's best-practice rules (those no WCAG ruleset of the audit selects) out of its results: they are
 * reported apart and never count towards findings, score, conformance or OpenACR.
 */
function splitBestPractice(
  results: CappedResults,
  wcagTags: readonly string[],
): { wcag: CappedResults; bestPractice: AxeOutcome['bestPractice'] | null } {
  const isWcag = (r: { tags: string[] }) => r.tags.some((t) => wcagTags.includes(t));
  if (![...results.violations, ...results.passes, ...results.incomplete].some((r) => !isWcag(r)))
    return { wcag: results, bestPractice: null };
  return {
    wcag: {
      ...results,
      violations: results.violations.filter(isWcag),
      incomplete: results.incomplete.filter(isWcag),
      passes: results.passes.filter(isWcag),
      inapplicable: results.inapplicable.filter(isWcag),
      omitted: (results.omitted ?? []).filter((o) => !results.violations.some((v) => v.id === o.ruleId && !isWcag(v))),
    },
    bestPractice: {
      violations: results.violations.filter((r) => !isWcag(r)),
      passed: results.passes.filter((r) => !isWcag(r)).map(ruleRef),
    },
  };
}

function ruleRef(r: { id: string; tags: string[] }): RuleRef {
  return { id: r.id, tags: r.tags };
}
