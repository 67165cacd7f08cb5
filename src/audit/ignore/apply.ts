import type { AuditResult } from '../result/types.ts';
import { isActive, matcherOf, type IgnoreRule } from './rules.ts';

/**
 * The result with its ignore rules applied at `now`: each finding a rule in force matches is marked `ignored` (the
 * first such rule's reason and expiry), never removed; `ignoreRules` lists every rule with its status and how many
 * findings it matches, so an expired rule says what it no longer hides. Score, conformance and stats stay what the
 * checks found: a rule decides what a CI gate counts and how reports show a failure, not whether it is one.
 */
export function applyIgnoreRules(result: AuditResult, rules: readonly IgnoreRule[], now: Date): AuditResult {
  if (rules.length === 0) return result;
  const matchers = rules.map(matcherOf);
  const active = rules.map((r) => isActive(r, now));
  const matched = rules.map(() => 0);
  let ignored = 0;
  const findings = result.findings.map((finding) => {
    let by: number | null = null;
    matchers.forEach((matches, i) => {
      if (!matches(finding)) return;
      matched[i]!++;
      if (by === null && active[i]) by = i;
    });
    if (by === null) return finding;
    ignored++;
    const rule = rules[by]!;
    return { ...finding, ignored: { rule: by, reason: rule.reason, expires: rule.expires } };
  });
  return {
    ...result,
    findings,
    stats: { ...result.stats, ignored },
    ignoreRules: rules.map((rule, i) => ({
      ...rule,
      status: active[i] ? ('active' as const) : ('expired' as const),
      matched: matched[i]!,
    })),
  };
}
