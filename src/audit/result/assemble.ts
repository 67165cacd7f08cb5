import { criteriaOf, levelOf } from '../engine/axe-tags.ts';
import { findingsOf } from '../engine/findings.ts';
import type { AxeOutcome } from '../engine/page-audit.ts';
import { auditScore, pageScore, type RuleVerdict } from './score.ts';
import {
  IMPACTS,
  type AuditConfig,
  type AuditResult,
  type Finding,
  type Impact,
  type MergedUrl,
  type NeedsReviewItem,
  type OmittedElements,
  type PageResult,
  type PageStats,
  type RuleOutcome,
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

const EMPTY_STATS: PageStats = { findings: 0, critical: 0, serious: 0, moderate: 0, minor: 0, needsReview: 0 };

/** Turns the pages an audit visited into the result: findings, needs-review items, rule outcomes, stats, score, conformance. */
export function assembleResult(input: AssembleInput): AuditResult {
  const findings: Finding[] = [];
  const needsReview: NeedsReviewItem[] = [];
  const pages: PageResult[] = [];
  const omitted: OmittedElements[] = [];
  // The whole audit's counts: listed elements and those the per-rule cap left out.
  const totals: PageStats = { ...EMPTY_STATS };
  const rules = new Map<string, RuleOutcome>();
  const rule = (id: string, tags: readonly string[]): RuleOutcome => {
    let r = rules.get(id);
    if (!r) {
      r = {
        ruleId: id,
        successCriteria: criteriaOf(tags),
        level: levelOf(tags),
        failedPages: 0,
        passedPages: 0,
        inapplicablePages: 0,
        needsReviewPages: 0,
      };
      rules.set(id, r);
    }
    return r;
  };

  input.pages.forEach((page, index) => {
    if (!page.axe) {
      pages.push({
        url: page.url,
        requestedUrl: page.requestedUrl,
        depth: page.depth,
        status: 'failed',
        httpStatus: page.httpStatus,
        title: page.title,
        error: page.error,
        score: null,
        stats: { ...EMPTY_STATS },
        durationMs: page.durationMs,
        mergedUrls: page.mergedUrls,
      });
      return;
    }
    const own = findingsOf(page.axe, page.url, index);
    findings.push(...own.findings);
    needsReview.push(...own.needsReview);
    const verdicts: RuleVerdict[] = [];
    const failed = new Set(page.axe.violations.map((v) => v.id));
    for (const v of page.axe.violations) {
      rule(v.id, v.tags).failedPages++;
      verdicts.push({ impact: input.ruleImpact(v.id) ?? (v.impact as Impact | null) ?? null, failed: true });
    }
    for (const r of page.axe.passed) {
      if (failed.has(r.id)) continue;
      rule(r.id, r.tags).passedPages++;
      verdicts.push({ impact: input.ruleImpact(r.id), failed: false });
    }
    for (const r of page.axe.inapplicable) rule(r.id, r.tags).inapplicablePages++;
    for (const v of page.axe.incomplete) rule(v.id, v.tags).needsReviewPages++;
    const stats: PageStats = { ...EMPTY_STATS, findings: own.findings.length, needsReview: own.needsReview.length };
    for (const f of own.findings) stats[f.impact]++;
    // Elements past the cap are counted like the listed ones, so stats say how much fails, not how much is shown.
    for (const left of page.axe.omitted) {
      let findingsLeft = 0;
      for (const impact of IMPACTS) {
        const n = left.violations[impact] ?? 0;
        stats[impact] += n;
        findingsLeft += n;
      }
      stats.findings += findingsLeft;
      stats.needsReview += left.incomplete;
      const tags = [...page.axe.violations, ...page.axe.incomplete].find((r) => r.id === left.ruleId)?.tags ?? [];
      omitted.push({
        pageUrl: page.url,
        ruleId: left.ruleId,
        successCriteria: criteriaOf(tags),
        findings: findingsLeft,
        needsReview: left.incomplete,
      });
    }
    for (const key of Object.keys(totals) as Array<keyof PageStats>) totals[key] += stats[key];
    pages.push({
      url: page.url,
      requestedUrl: page.requestedUrl,
      depth: page.depth,
      status: 'audited',
      httpStatus: page.httpStatus,
      title: page.title,
      error: null,
      score: pageScore(verdicts),
      stats,
      durationMs: page.durationMs,
      mergedUrls: page.mergedUrls,
    });
  });

  const audited = pages.filter((p) => p.status === 'audited');
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
    rules: [...rules.values()].sort((a, b) => a.ruleId.localeCompare(b.ruleId)),
    llm: null,
    config: input.config,
    engine: input.engine,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
  };
}
