import { IMPACTS, type AuditResult, type Impact } from '../result/types.ts';
import { compareCriteria } from './criteria.ts';

/** One failing rule across the audit, as the summary's "What to fix first" lists it. */
export interface RulePriority {
  ruleId: string;
  /** What the rule requires (axe's help text). */
  summary: string;
  /** The most severe impact among its elements. */
  impact: Impact;
  /** Failing elements, those past the per-rule cap included. */
  elements: number;
  pages: number;
  /** Its criteria in numeric order; the first names the section its elements are listed in. */
  criteria: string[];
}

/**
 * Failing rules, most severe first and, within an impact, most elements first: a reader facing 140 failing
 * elements wants to know which fix removes most of the harm (Lighthouse orders its audits by weight, axe
 * DevTools groups by rule). One fix of a rule's pattern usually fixes many of its elements.
 */
export function rulePriorities(r: AuditResult): RulePriority[] {
  const rules = new Map<string, RulePriority & { pageSet: Set<string> }>();
  for (const f of r.findings) {
    let p = rules.get(f.ruleId);
    if (!p) {
      p = {
        ruleId: f.ruleId,
        summary: f.summary,
        impact: f.impact,
        elements: 0,
        pages: 0,
        criteria: [...f.successCriteria].sort(compareCriteria),
        pageSet: new Set(),
      };
      rules.set(f.ruleId, p);
    }
    if (IMPACTS.indexOf(f.impact) < IMPACTS.indexOf(p.impact)) p.impact = f.impact;
    p.elements++;
    p.pageSet.add(f.pageUrl);
  }
  // The cap lists at least one element of a rule before it omits any, so every omitted rule is known here.
  for (const o of r.omitted ?? []) {
    const p = rules.get(o.ruleId);
    if (!p || o.findings === 0) continue;
    p.elements += o.findings;
    p.pageSet.add(o.pageUrl);
  }
  return [...rules.values()]
    .map(({ pageSet, ...p }) => ({ ...p, pages: pageSet.size }))
    .sort(
      (a, b) =>
        IMPACTS.indexOf(a.impact) - IMPACTS.indexOf(b.impact) ||
        b.elements - a.elements ||
        a.ruleId.localeCompare(b.ruleId),
    );
}
