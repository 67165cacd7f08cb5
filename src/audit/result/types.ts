/**
 * The audit result: what `POST /audit` answers, what `GET /api/v1/audits/{id}` carries as `result` and what
 * the JSON report is. The HTML report and the OpenACR report are made from it alone.
 *
 * Document 3 fixes the names of the synchronous result (`url`, `wcagVersion`, `wcagLevel`, `score`,
 * `conformant`, `stats`, `findings`), of the job result (`targetUrl`, `wcagVersion`, `wcagLevel`, `stats`) and
 * of a finding (`id`, `ruleId`, `description`, `impact`, `level`, `element`, `selector`, `html`,
 * `successCriteria`, `help`). One result carries all of them; the rest is ours and documented in docs/audit.md.
 */

import type { IgnoreRule } from '../ignore/rules.ts';
import type { SessionConfig } from '../session/types.ts';

export type WcagVersion = '2.0' | '2.1' | '2.2';
export type WcagLevel = 'A' | 'AA' | 'AAA';
export type Impact = 'critical' | 'serious' | 'moderate' | 'minor';

export const WCAG_VERSIONS: readonly WcagVersion[] = ['2.0', '2.1', '2.2'];
export const WCAG_LEVELS: readonly WcagLevel[] = ['A', 'AA', 'AAA'];
export const IMPACTS: readonly Impact[] = ['critical', 'serious', 'moderate', 'minor'];

export type LlmProvider = 'openai' | 'anthropic';

/** The configuration an audit ran with, every default filled in. */
export interface AuditConfig {
  wcagVersion: WcagVersion;
  wcagLevel: WcagLevel;
  crawl: {
    enabled: boolean;
    /** Link hops followed from the start URL (0: the start page and sitemap pages only). */
    depth: number;
    /** Pages audited at most, the start page included. */
    maxPages: number;
  };
  llm: {
    enabled: boolean;
    provider: LlmProvider | null;
    model: string | null;
  };
  /** The axe-core tags that selected the rules (not cumulative: 2.2 AA is wcag2a … wcag22aa). */
  axeTags: string[];
  /** Sign-in steps, cookies and headers, secrets named, never their values; null without. Absent in configs stored before sessions existed. */
  session?: SessionConfig | null;
  /** The checks that need a real browser ran after axe (docs/audit.md, "Deep audit"); absent in configs stored before they existed. */
  deep?: boolean;
  /** axe's best-practice rules ran too, reported apart in `bestPractices`; absent in configs stored before. */
  bestPractices?: boolean;
  /** The team's ignore rules the audit applied; absent in configs stored before ignore rules existed. */
  ignore?: IgnoreRule[];
}

/** A failed check on one element: an axe `violation` node. Counts against `score` and `conformant`. */
export interface Finding {
  /** Unique within the result: `<page index>-<n>`, e.g. `0-3`. */
  id: string;
  /** axe rule id, e.g. `image-alt`. */
  ruleId: string;
  /** What the rule checks (axe's rule description). */
  description: string;
  impact: Impact;
  /** The lowest conformance level among `successCriteria` (A below AA below AAA). */
  level: WcagLevel;
  /** Lower-case element name, e.g. `img`. */
  element: string;
  /**
   * CSS selector of the element. Crossing into a frame joins the frame element's selector and the
   * selector inside it with ` >>> `; crossing into an open shadow root joins the host's selector and the
   * selector inside it with ` >> `. Example: `iframe#checkout >>> #card-host >> input`.
   */
  selector: string;
  /** axe's target as it gave it: one entry per frame, an array of selectors per shadow root. */
  target: Array<string | string[]>;
  /** Outer HTML of the element (axe truncates long markup). */
  html: string;
  /** WCAG success criteria the rule maps to, e.g. `["1.4.3"]`, in numeric order. */
  successCriteria: string[];
  /** URL of the rule's help page (axe's helpUrl). */
  help: string;
  /** Short statement of what is required (axe's help text), e.g. "Images must have alternative text". */
  summary: string;
  /** How to fix this element (axe's failureSummary). */
  fix: string;
  /** URL of the page the element is on (the URL audited, after redirects). */
  pageUrl: string;
  /** W3C ACT rule ids the rule implements, when any (deep checks). */
  actRules?: string[];
  /** A deep audit's small cropped JPEG of the element, outlined in red, as a `data:` URI (at most 10 a page, 20 KB each). */
  screenshot?: string;
  /**
   * Present when an ignore rule in force matches it: the rule's index in `config.ignore`, its reason and expiry. Still
   * a failure (stats, score, conformance); a CI gate does not count it, and reports show it as ignored.
   */
  ignored?: { rule: number; reason: string; expires: string };
}

/**
 * An element axe could not decide on (an axe `incomplete` node): a person has to look. Never a failure, never
 * counted in `stats` impacts, `score` or `conformant`.
 */
export interface NeedsReviewItem {
  id: string;
  ruleId: string;
  description: string;
  /** axe's impact were it a failure; null when axe gave none. */
  impact: Impact | null;
  level: WcagLevel;
  element: string;
  selector: string;
  target: Array<string | string[]>;
  html: string;
  successCriteria: string[];
  help: string;
  summary: string;
  /** Why axe could not decide: its messages for the node, one a line. */
  reason: string;
  pageUrl: string;
  actRules?: string[];
  /** For a deep check that asks a person: the question to answer. */
  question?: string;
  /** And how to answer it by hand. */
  howToCheck?: string;
}

/**
 * What an LLM judged where axe cannot: an image's alternative text, a link's purpose, a page title. Never in
 * `findings`, never counted in `stats`, `score` or `conformant`.
 */
export interface LlmFinding {
  id: string;
  source: 'llm';
  /** What was judged. */
  check: 'image-alt' | 'link-purpose' | 'page-title';
  provider: LlmProvider;
  model: string;
  /** The model's confidence, 0 to 1. */
  confidence: number;
  description: string;
  /** A suggested replacement (alternative text, link text or title), when the model gave one. */
  suggestion: string | null;
  successCriteria: string[];
  level: WcagLevel;
  element: string;
  selector: string;
  html: string;
  pageUrl: string;
}

export interface LlmOutcome {
  provider: LlmProvider;
  model: string;
  /** `completed`: every page judged; `partial`: some; `failed`: none (provider down, timeout, bad answer). */
  status: 'completed' | 'partial' | 'failed';
  /** Why some or all judgements are missing, for people; null when completed. */
  error: string | null;
  findings: LlmFinding[];
}

/** How one axe rule fared across the audited pages: lets OpenACR tell "passed" from "never checked". */
export interface RuleOutcome {
  ruleId: string;
  successCriteria: string[];
  level: WcagLevel;
  /** Pages where the rule found at least one violation. */
  failedPages: number;
  /** Pages where it ran on matching elements and found none failing (needs-review items aside). */
  passedPages: number;
  /** Pages where it had nothing to check. */
  inapplicablePages: number;
  /** Pages where it left at least one element for review. */
  needsReviewPages: number;
}

/**
 * Elements of one rule on one page that axe reported beyond the service's cap (`AUDIT_MAX_ELEMENTS_PER_RULE`,
 * `engine.maxElementsPerRule`): counted in `stats`, not listed in `findings` or `needsReview`.
 */
export interface OmittedElements {
  pageUrl: string;
  ruleId: string;
  successCriteria: string[];
  /** Failing elements not listed. */
  findings: number;
  /** Elements needing review not listed. */
  needsReview: number;
}

export interface PageStats {
  findings: number;
  critical: number;
  serious: number;
  moderate: number;
  minor: number;
  needsReview: number;
}

/** Why a URL found by a crawl was taken for a page already recorded (see src/audit/crawl/same-page.ts). */
export type MergeReason = 'same-url' | 'canonical' | 'same-content';

/** A URL found by a crawl that is a recorded page again: not audited or counted a second time. */
export interface MergedUrl {
  /** The URL as found (a link, a sitemap entry), normalised. */
  url: string;
  /**
   * `same-url`: after redirects it is this page's URL. `canonical`: its `<link rel="canonical">` names this page,
   * or this page's names it. `same-content`: its document, once settled, is this page's, byte for byte.
   */
  reason: MergeReason;
}

export interface PageResult {
  /** The URL audited, after redirects; for a failed page the URL requested. */
  url: string;
  /** The URL as requested (found as a link, in the sitemap, or the start URL). */
  requestedUrl: string;
  /** Link hops from the start URL (sitemap pages count as 1, the start page is 0). */
  depth: number;
  /** `audited`: axe ran. `failed`: the page could not be loaded or checked; `error` says why. */
  status: 'audited' | 'failed';
  /** HTTP status of the page's document; null when no answer came. */
  httpStatus: number | null;
  title: string | null;
  error: string | null;
  /** Lighthouse-style score of this page alone; null when not audited. */
  score: number | null;
  stats: PageStats;
  /** Wall time from navigation to axe's answer, in milliseconds. */
  durationMs: number;
  /** Other URLs of the crawl that are this same page, audited and counted once here. Absent in results stored before merging existed. */
  mergedUrls?: MergedUrl[];
}

export interface AuditStats {
  /** Pages audited or attempted (failed pages included). */
  totalPages: number;
  totalFindings: number;
  critical: number;
  serious: number;
  moderate: number;
  minor: number;
  needsReview: number;
  /** Pages that could not be audited. */
  failedPages: number;
  /** Findings an ignore rule in force matches (counted above too); absent when the audit had no ignore rules. */
  ignored?: number;
}

/** An ignore rule as the result reports it: in force or expired, and how many findings it matches. */
export interface IgnoreRuleOutcome extends IgnoreRule {
  status: 'active' | 'expired';
  /** Findings it matches; for an expired rule, the failures it no longer hides. */
  matched: number;
}

export interface AuditResult {
  /** The start URL as given (Document 3's synchronous result). */
  url: string;
  /** The same start URL (Document 3's job result). */
  targetUrl: string;
  wcagVersion: WcagVersion;
  wcagLevel: WcagLevel;
  /** 0–100, Lighthouse's weighting over every audited page; see docs/audit.md. */
  score: number;
  /** True only when at least one page was audited, no page failed to audit and no page has a finding. */
  conformant: boolean;
  stats: AuditStats;
  /** Every violation on every page, page by page in crawl order: at most `engine.maxElementsPerRule` per rule and page (`omitted` counts the rest). */
  findings: Finding[];
  needsReview: NeedsReviewItem[];
  /** What the cap left out, per page and rule; empty when nothing was. Absent in results stored before the cap existed. */
  omitted?: OmittedElements[];
  pages: PageResult[];
  rules: RuleOutcome[];
  /** Present when LLM assistance was asked for. */
  llm: LlmOutcome | null;
  /** axe's best-practice rules, when the audit asked for them: never in findings, stats, score, conformance or OpenACR. */
  bestPractices?: { findings: Finding[]; passed: string[] };
  /** The ignore rules applied, when the audit had any. */
  ignoreRules?: IgnoreRuleOutcome[];
  config: AuditConfig;
  engine: {
    axeVersion: string;
    /** Browser product and version, e.g. `Chromium 156.0.7563.0`. */
    browser: string;
    /** Elements listed at most per rule, page and outcome (failing, needs review); absent in results stored before the cap existed. */
    maxElementsPerRule?: number;
  };
  /** ISO 8601 UTC. */
  startedAt: string;
  finishedAt: string;
}

export type AuditJobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
