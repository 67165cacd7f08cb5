import type { AxeResults, ImpactValue, NodeResult, Result } from 'axe-core';
import type { Finding, Impact, NeedsReviewItem } from '../result/types.ts';
import { criteriaOf, levelOf } from './axe-tags.ts';
import { shotKey } from './checks/element-shots.ts';
import { browserCheckRule } from './checks/registry.ts';

const ACT_TAG = /^act-([0-9a-z]{6})$/;

function actRulesOf(tags: readonly string[]): string[] {
  return tags.flatMap((t) => ACT_TAG.exec(t)?.[1] ?? []);
}

/** An axe target as one CSS-like string: ` >>> ` into a frame, ` >> ` into an open shadow root. */
export function selectorOf(target: NodeResult['target']): string {
  return (target as unknown as Array<string | string[]>)
    .map((part) => (Array.isArray(part) ? part.join(' >> ') : part))
    .join(' >>> ');
}

/** The element's lower-case name, read from the start of its markup. */
export function elementOf(html: string): string {
  const m = /^\s*<([a-zA-Z][a-zA-Z0-9:-]*)/.exec(html);
  return m ? m[1]!.toLowerCase() : '';
}

const IMPACTS = new Set(['critical', 'serious', 'moderate', 'minor']);
function impactOf(value: ImpactValue | undefined | null): Impact | null {
  return value && IMPACTS.has(value) ? (value as Impact) : null;
}

function reasonOf(node: NodeResult): string {
  const messages = [...node.any, ...node.all, ...node.none].map((c) => c.message).filter(Boolean);
  // One message per line, as axe's failureSummary has them: joined by spaces they read as one sentence.
  return [...new Set(messages)].join('\n') || node.failureSummary || '';
}

export interface PageFindings {
  findings: Finding[];
  needsReview: NeedsReviewItem[];
}

/** One Finding per violating element and one NeedsReviewItem per undecided one; `pageIndex` keeps ids unique in the result. */
export function findingsOf(
  results: Pick<AxeResults, 'violations' | 'incomplete'> & { screenshots?: Record<string, string> },
  pageUrl: string,
  pageIndex: number,
): PageFindings {
  const findings: Finding[] = [];
  const needsReview: NeedsReviewItem[] = [];
  const common = (rule: Result, node: NodeResult) => ({
    ruleId: rule.id,
    description: rule.description,
    level: levelOf(rule.tags),
    element: elementOf(node.html),
    selector: selectorOf(node.target),
    target: node.target as unknown as Array<string | string[]>,
    html: node.html,
    successCriteria: criteriaOf(rule.tags),
    help: rule.helpUrl,
    summary: rule.help,
    pageUrl,
    ...(actRulesOf(rule.tags).length > 0 ? { actRules: actRulesOf(rule.tags) } : {}),
  });
  for (const rule of results.violations) {
    for (const node of rule.nodes) {
      findings.push({
        id: `${pageIndex}-${findings.length}`,
        ...common(rule, node),
        impact: impactOf(node.impact) ?? impactOf(rule.impact) ?? 'moderate',
        fix: node.failureSummary ?? '',
        ...screenshotOf(results.screenshots, rule.id, selectorOf(node.target)),
      });
    }
  }
  for (const rule of results.incomplete) {
    for (const node of rule.nodes) {
      needsReview.push({
        id: `${pageIndex}-r${needsReview.length}`,
        ...common(rule, node),
        impact: impactOf(node.impact) ?? impactOf(rule.impact),
        reason: reasonOf(node),
        ...reviewGuide(rule.id),
      });
    }
  }
  return { findings, needsReview };
}

/** The question and the manual check of a deep check that asks a person; none for axe's rules. */
function reviewGuide(ruleId: string): { question?: string; howToCheck?: string } {
  const review = browserCheckRule(ruleId)?.review;
  return review ? { question: review.question, howToCheck: review.howToCheck } : {};
}

function screenshotOf(
  shots: Record<string, string> | undefined,
  ruleId: string,
  selector: string,
): { screenshot?: string } {
  const shot = shots?.[shotKey(ruleId, selector)];
  return shot ? { screenshot: shot } : {};
}
