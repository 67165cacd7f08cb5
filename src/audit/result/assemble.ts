import { findingsOf } from '../engine/findings.ts';
import type { AxeOutcome } from '../engine/page-audit.ts';
import { EMPTY_STATS, omittedOf, pageStats, sumStats } from './page-stats.ts';
import { RuleOutcomes } from './rule-outcomes.ts';
import { auditScore, pageScore } from './score.ts';
import type {
  AuditConfig,
  AuditResult,
  Finding,
  Impact,
  MergedUrl,
  NeedsReviewItem,
  OmittedElements,
  PageResult,
  PageStats,
} from './types.ts';

export interface AuditedPage {
  requestedUrl: string;
  depth: number;
  url: string;
  httpStatus: number | null;
  title: string | null;
  durationMs: number;
  /** Present when axe ran; absent for a failed page. */
  axe: AxeOutcome | null;
  error: string | null;
  /** Other URLs the crawl found that are this page. */
  mergedUrls: MergedUrl[];
}

export interface AssembleInput {
  url: string;
  config: AuditConfig;
  pages: AuditedPage[];
  /** Each rule's own impact, for the weight of rules that passed. */
  ruleImpact: (ruleId: string) => Impact | null;
  engine: AuditResult['engine'];
  startedAt: Date;
  finishedAt: Date;
}

/** Screenshots of failing elements kept at most per audit (about 1 MB at 20 KB each): the first findings keep theirs. */
export const MAX_SCREENSHOTS = 50;

function keepScreenshots(findings: Finding[], max: number): void {
  let kept = 0;
  for (const f of findings) {
    if (!f.screenshot) continue;
    if (kept < max) kept++;
    else delete f.screenshot;
  }
}

/** Turns the pages an audit visited into the result: findings, needs-review items, rule outcomes, stats, score, conformance. */
export function assembleResult(input: AssembleInput): AuditResult {
  const findings: Finding[] = [];
  const needsReview: NeedsReviewItem[] = [];
  const omitted: OmittedElements[] = [];
  const rules = new RuleOutcomes();
  const bestPractices = { findings: [] as Finding[], passed: new Set<string>() };
  const pages = input.pages.map((page, index): PageResult => {
    if (!page.axe) return pageResult(page, 'failed', null, { ...EMPTY_STATS });
    const own = findingsOf(page.axe, page.url, index);
    findings.push(...own.findings);
    needsReview.push(...own.needsReview);
    const verdicts = rules.tally(page.axe, input.ruleImpact);
    if (page.axe.bestPractice) {
      const found = findingsOf({ violations: page.axe.bestPractice.violations, incomplete: [] }, page.url, index);
      bestPractices.findings.push(...found.findings.map((f) => ({ ...f, id: `${index}-b${f.id.split('-')[1]}` })));
      for (const r of page.axe.bestPractice.passed) bestPractices.passed.add(r.id);
    }
    omitted.push(...omittedOf(page.url, page.axe));
    const stats = pageStats(own.findings, own.needsReview.length, page.axe.omitted);
    return pageResult(page, 'audited', pageScore(verdicts), stats);
  });
  keepScreenshots(findings, MAX_SCREENSHOTS);
  const audited = pages.filter((p) => p.status === 'audited');
  // The whole audit's counts: listed elements and those the per-rule cap left out.
  const totals = sumStats(pages.map((p) => p.stats));
  return {
    url: input.url,
    targetUrl: input.url,
    wcagVersion: input.config.wcagVersion,
    wcagLevel: input.config.wcagLevel,
    score: auditScore(audited.map((p) => p.score!)),
    conformant: audited.length > 0 && audited.length === pages.length && findings.length === 0,
    stats: {
      totalPages: pages.length,
      totalFindings: totals.findings,
      critical: totals.critical,
      serious: totals.serious,
      moderate: totals.moderate,
      minor: totals.minor,
      needsReview: totals.needsReview,
      failedPages: pages.length - audited.length,
    },
    findings,
    needsReview,
    omitted,
    pages,
    rules: rules.sorted(),
    llm: null,
    ...(input.config.bestPractices
      ? {
          bestPractices: {
            findings: bestPractices.findings,
            passed: [...bestPractices.passed]
              .filter((id) => !bestPractices.findings.some((f) => f.ruleId === id))
              .sort(),
          },
        }
      : {}),
    config: input.config,
    engine: input.engine,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
  };
}

function pageResult(
  page: AuditedPage,
  status: PageResult['status'],
  score: number | null,
  stats: PageStats,
): PageResult {
  return {
    url: page.url,
    requestedUrl: page.requestedUrl,
    depth: page.depth,
    status,
    httpStatus: page.httpStatus,
    title: page.title,
    error: status === 'failed' ? page.error : null,
    score,
    stats,
    durationMs: page.durationMs,
    mergedUrls: page.mergedUrls,
  };
}
