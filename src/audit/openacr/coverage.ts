import { lazyPackage } from '../../kit/lazy-package.ts';
import { criteriaOf } from '../engine/axe-tags.ts';
import { BROWSER_CHECKS } from '../engine/checks/registry.ts';

/** axe-core's readable build in Node, only for its rules' metadata: ~3 MB of heap a service without OpenACR reports never needs. */
const axe = lazyPackage<typeof import('axe-core')>('axe-core');

/**
 * Which WCAG success criteria axe-core's rules check, from the rules' own metadata: a tag `wcagNNN` names a
 * criterion (`wcag1411` is 1.4.11), a tag like `wcag21aa` names the ruleset that runs it. Experimental and
 * deprecated rules are left out: an audit never runs them.
 */
export interface RuleCoverage {
  ruleId: string;
  successCriteria: string[];
  /** The level tags that select the rule (`wcag2a`, `wcag21aa`, `wcag2aaa`, ...). */
  rulesets: string[];
}

const CRITERION_TAG = /^wcag(\d)(\d)(\d{1,2})$/;
const RULESET_TAG = /^wcag2\d?a{1,3}$/;

function criterionOf(tag: string): string | undefined {
  const m = CRITERION_TAG.exec(tag);
  return m ? `${m[1]}.${m[2]}.${m[3]}` : undefined;
}

let cache: RuleCoverage[] | undefined;

export function axeRuleCoverage(): RuleCoverage[] {
  cache ??= axe()
    .getRules()
    .filter((r) => !r.tags.includes('experimental') && !r.tags.includes('deprecated'))
    .map((r) => ({
      ruleId: r.ruleId,
      successCriteria: r.tags.map(criterionOf).filter((c): c is string => c !== undefined),
      rulesets: r.tags.filter((t) => RULESET_TAG.test(t)),
    }))
    .filter((r) => r.successCriteria.length > 0 && r.rulesets.length > 0);
  return cache;
}

/** The axe rules that check `criterion` and would run with `tags` (an audit's `config.axeTags`). */
export function rulesCovering(criterion: string, tags: readonly string[]): string[] {
  return axeRuleCoverage()
    .filter((r) => r.successCriteria.includes(criterion) && r.rulesets.some((t) => tags.includes(t)))
    .map((r) => r.ruleId);
}

/** The axe rules that check `criterion` at all, whatever an audit's tags. */
export function anyRulesCovering(criterion: string): string[] {
  return axeRuleCoverage()
    .filter((r) => r.successCriteria.includes(criterion))
    .map((r) => r.ruleId);
}

/**
 * The deep audit's rules that check `criterion`, from their own tags. A rule that only asks a person (focus order,
 * motion) is left out: it never makes a criterion *supports*, it only leaves items for review.
 */
export function deepRulesCovering(criterion: string): string[] {
  return BROWSER_CHECKS.filter((c) => !c.rule.review?.only && criteriaOf(c.rule.tags).includes(criterion)).map(
    (c) => c.rule.id,
  );
}
