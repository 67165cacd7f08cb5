import { criteriaOf } from '../engine/axe-tags.ts';
import type { AxeOutcome } from '../engine/page-audit.ts';
import { IMPACTS, type Finding, type OmittedElements, type PageStats } from './types.ts';

export const EMPTY_STATS: PageStats = { findings: 0, critical: 0, serious: 0, moderate: 0, minor: 0, needsReview: 0 };

/**
 * A page's counts: its listed findings by impact and its items needing review, and the elements past the per-rule
 * cap counted like the listed ones, so stats say how much fails, not how much is shown.
 */
export function pageStats(
  findings: readonly Finding[],
  needsReview: number,
  omitted: AxeOutcome['omitted'],
): PageStats {
  const stats: PageStats = { ...EMPTY_STATS, findings: findings.length, needsReview };
  for (const f of findings) stats[f.impact]++;
  for (const left of omitted) {
    for (const impact of IMPACTS) stats[impact] += left.violations[impact] ?? 0;
    stats.findings += omittedFindings(left);
    stats.needsReview += left.incomplete;
  }
  return stats;
}

/** The elements a page's rules left unlisted past the cap, as the result names them. */
export function omittedOf(pageUrl: string, axe: AxeOutcome): OmittedElements[] {
  return axe.omitted.map((left) => {
    const tags = [...axe.violations, ...axe.incomplete].find((r) => r.id === left.ruleId)?.tags ?? [];
    return {
      pageUrl,
      ruleId: left.ruleId,
      successCriteria: criteriaOf(tags),
      findings: omittedFindings(left),
      needsReview: left.incomplete,
    };
  });
}

/** The counts of many pages added up. */
export function sumStats(all: readonly PageStats[]): PageStats {
  const totals: PageStats = { ...EMPTY_STATS };
  for (const stats of all) for (const key of Object.keys(totals) as Array<keyof PageStats>) totals[key] += stats[key];
  return totals;
}

function omittedFindings(left: AxeOutcome['omitted'][number]): number {
  return IMPACTS.reduce((n, impact) => n + (left.violations[impact] ?? 0), 0);
}
