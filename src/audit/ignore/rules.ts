import { badRequest } from '../request/resolve.ts';
import type { Finding } from '../result/types.ts';
import { urlPatternMatcher } from '../url-pattern.ts';

/** An ignore rule as the audit keeps it (`config.ignore`): what it matches, why, until when. */
export interface IgnoreRule {
  rule?: string | undefined;
  selector?: string | undefined;
  url?: string | undefined;
  reason: string;
  /** The last day it applies, YYYY-MM-DD, UTC. */
  expires: string;
}

/** Rules checked one by one: a real date, at least one thing to match; a 400 names the rule. */
export function resolveIgnoreRules(rules: readonly IgnoreRule[] | undefined): IgnoreRule[] {
  return (rules ?? []).map((r, i) => {
    if (r.rule === undefined && r.selector === undefined && r.url === undefined)
      throw badRequest(`ignore[${i}] needs rule, selector or url: a rule matching everything would hide every failure`);
    if (!r.reason.trim()) throw badRequest(`ignore[${i}] needs a reason`);
    if (Number.isNaN(endOfDay(r.expires)))
      throw badRequest(`ignore[${i}].expires must be a date (YYYY-MM-DD); got ${JSON.stringify(r.expires)}`);
    return {
      ...(r.rule !== undefined ? { rule: r.rule } : {}),
      ...(r.selector !== undefined ? { selector: r.selector } : {}),
      ...(r.url !== undefined ? { url: r.url } : {}),
      reason: r.reason,
      expires: r.expires,
    };
  });
}

/** Whether a rule still applies at `now`: through the whole of its `expires` day, UTC. */
export function isActive(rule: IgnoreRule, now: Date): boolean {
  return now.getTime() < endOfDay(rule.expires);
}

/** A finding matches when every field the rule gives matches it. */
export function matcherOf(rule: IgnoreRule): (finding: Finding) => boolean {
  const url = rule.url === undefined ? null : urlPatternMatcher(rule.url);
  return (f) =>
    (rule.rule === undefined || rule.rule === f.ruleId) &&
    (rule.selector === undefined || rule.selector === f.selector) &&
    (url === null || url(f.pageUrl));
}

/** Midnight UTC after the day, in ms; NaN for a date that does not exist (2025-02-30). */
function endOfDay(day: string): number {
  const start = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== day) return Number.NaN;
  return start + 86_400_000;
}
