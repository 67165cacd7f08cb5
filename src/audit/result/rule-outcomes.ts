import { criteriaOf, levelOf } from '../engine/axe-tags.ts';
import type { AxeOutcome } from '../engine/page-audit.ts';
import type { RuleVerdict } from './score.ts';
import type { Impact, RuleOutcome } from './types.ts';

/** Each rule's outcome over the audited pages: on how many it failed, passed, had nothing to check or left items for review. */
export class RuleOutcomes {
  readonly #rules = new Map<string, RuleOutcome>();

  /**
   * Counts one page's axe outcome, and answers its rules' verdicts for the page's score: failed and passed rules
   * (a rule failing in one frame and passing in another failed), each weighed by the rule's own impact.
   */
  tally(axe: AxeOutcome, ruleImpact: (ruleId: string) => Impact | null): RuleVerdict[] {
    const verdicts: RuleVerdict[] = [];
    const failed = new Set(axe.violations.map((v) => v.id));
    for (const v of axe.violations) {
      this.#rule(v.id, v.tags).failedPages++;
      verdicts.push({ impact: ruleImpact(v.id) ?? (v.impact as Impact | null) ?? null, failed: true });
    }
    for (const r of axe.passed) {
      if (failed.has(r.id)) continue;
      this.#rule(r.id, r.tags).passedPages++;
      verdicts.push({ impact: ruleImpact(r.id), failed: false });
    }
    for (const r of axe.inapplicable) this.#rule(r.id, r.tags).inapplicablePages++;
    for (const v of axe.incomplete) this.#rule(v.id, v.tags).needsReviewPages++;
    return verdicts;
  }

  /** The outcomes by rule id. */
  sorted(): RuleOutcome[] {
    return [...this.#rules.values()].sort((a, b) => a.ruleId.localeCompare(b.ruleId));
  }

  #rule(id: string, tags: readonly string[]): RuleOutcome {
    let r = this.#rules.get(id);
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
      this.#rules.set(id, r);
    }
    return r;
  }
}
