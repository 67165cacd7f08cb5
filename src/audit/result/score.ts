import type { Impact } from './types.ts';

/**
 * Lighthouse's accessibility weights: each rule is pass/fail with no partial credit and weighs by its
 * axe impact. Rules with nothing to check, and rules that only left items for review, weigh nothing.
 */
export const IMPACT_WEIGHTS: Record<Impact, number> = { critical: 10, serious: 7, moderate: 3, minor: 1 };

export interface RuleVerdict {
  impact: Impact | null;
  failed: boolean;
}

/** Σ weight of passed rules / Σ weight of applicable rules × 100, rounded; 100 when no rule applied. */
export function pageScore(verdicts: readonly RuleVerdict[]): number {
  let total = 0;
  let passed = 0;
  for (const v of verdicts) {
    const w = IMPACT_WEIGHTS[v.impact ?? 'moderate'];
    total += w;
    if (!v.failed) passed += w;
  }
  return total === 0 ? 100 : Math.round((passed / total) * 100);
}

/** The audit's score: the mean of its audited pages' scores, rounded; 0 when no page could be audited. */
export function auditScore(pageScores: readonly number[]): number {
  if (pageScores.length === 0) return 0;
  return Math.round(pageScores.reduce((a, b) => a + b, 0) / pageScores.length);
}
