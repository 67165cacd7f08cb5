import { criterionName } from '../../../../../src/audit/report/criteria.ts';
import type { RuleOutcome } from '../api.ts';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What a rule checks, in words: the WCAG success criteria it maps to, by number and name. */
function checks(rule: RuleOutcome): string {
  if (rule.successCriteria.length === 0) return 'Not mapped to a success criterion';
  return rule.successCriteria.map((c) => `${c} ${criterionName(c) ?? ''}`.trim()).join('; ');
}

/**
 * The rules that found elements to check and no failure on any page, as Lighthouse lists its passed audits: folded
 * away by default (a `<details>`), since what failed comes first. As the HTML report's "Passed checks".
 */
export function PassedChecks({ rules }: { rules: RuleOutcome[] }) {
  const passed = rules.filter((r) => r.passedPages > 0 && r.failedPages === 0);
  if (passed.length === 0) return <p>No rule passed on every page it applied to.</p>;
  return (
    <details className="passed">
      <summary>{`Show the ${plural(passed.length, 'rule')} that found elements to check and no failure`}</summary>
      <ul>
        {passed.map((r) => (
          <li key={r.ruleId}>
            <code>{r.ruleId}</code>: {checks(r)} (level {r.level}), passed on {plural(r.passedPages, 'page')}
            {r.needsReviewPages > 0 && `, ${plural(r.needsReviewPages, 'page')} with items to review`}
          </li>
        ))}
      </ul>
    </details>
  );
}
