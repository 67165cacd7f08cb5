import { IMPACTS, type AuditResult } from '../result/types.ts';
import { pagePath } from '../compare/failure-key.ts';
import type { GateOutcome } from './gate.ts';

/**
 * What a person reads in a CI log: what was audited, the score and counts, the failing rules (most severe first),
 * pages that could not be audited, each threshold checked, and the verdict with its exit code.
 */
export function summaryLines(result: AuditResult, gate: GateOutcome, written: string[]): string[] {
  const s = result.stats;
  const lines = [
    `Accessibility audit of ${result.url} (WCAG ${result.wcagVersion} ${result.wcagLevel}): ${s.totalPages} ${s.totalPages === 1 ? 'page' : 'pages'}, score ${result.score}/100`,
    `Failures: ${s.totalFindings} (${IMPACTS.map((i) => `${i} ${s[i]}`).join(', ')}); ${s.needsReview} to review by a person`,
  ];
  lines.push(...ignoreLines(result));
  const rules = failingRules(result);
  if (rules.length) {
    lines.push('Failing rules:');
    for (const rule of rules.slice(0, 15))
      lines.push(
        `  ${rule.impact.padEnd(8)} ${rule.ruleId}: ${rule.elements} ${rule.elements === 1 ? 'element' : 'elements'}${rule.ignored ? ` (${rule.ignored} ignored)` : ''} on ${rule.pages.size} ${rule.pages.size === 1 ? 'page' : 'pages'} (${[...rule.pages].slice(0, 3).join(', ')}${rule.pages.size > 3 ? ', …' : ''}) — ${rule.summary}`,
      );
    if (rules.length > 15) lines.push(`  … and ${rules.length - 15} more rules`);
  }
  for (const page of result.pages.filter((p) => p.status === 'failed'))
    lines.push(`Not audited: ${page.url}: ${page.error}`);
  if (gate.checks.length) {
    lines.push('Thresholds:');
    for (const check of gate.checks) {
      lines.push(`  ${check.passed ? 'pass' : 'FAIL'}  ${check.line}`);
      for (const detail of check.details) lines.push(`          ${detail}`);
    }
  }
  for (const file of written) lines.push(`Report: ${file}`);
  lines.push(
    gate.exitCode === 0
      ? `Result: passed${gate.checks.length ? '' : ' (no thresholds set)'}`
      : `Result: failed (exit ${gate.exitCode})`,
  );
  return lines;
}

interface RuleLine {
  ruleId: string;
  impact: (typeof IMPACTS)[number];
  summary: string;
  elements: number;
  ignored: number;
  pages: Set<string>;
}

/** The failing rules, most severe impact first, then most elements. */
function failingRules(result: AuditResult): RuleLine[] {
  const rules = new Map<string, RuleLine>();
  for (const f of result.findings) {
    let rule = rules.get(f.ruleId);
    if (!rule) {
      rule = { ruleId: f.ruleId, impact: f.impact, summary: f.summary, elements: 0, ignored: 0, pages: new Set() };
      rules.set(f.ruleId, rule);
    }
    if (IMPACTS.indexOf(f.impact) < IMPACTS.indexOf(rule.impact)) rule.impact = f.impact;
    rule.elements++;
    if (f.ignored) rule.ignored++;
    rule.pages.add(pagePath(f.pageUrl));
  }
  return [...rules.values()].sort(
    (a, b) => IMPACTS.indexOf(a.impact) - IMPACTS.indexOf(b.impact) || b.elements - a.elements,
  );
}

/** Each ignore rule with what it does now: the failures it hides, or, expired, those it no longer hides. */
function ignoreLines(result: AuditResult): string[] {
  const rules = result.ignoreRules ?? [];
  if (rules.length === 0) return [];
  const lines = [`Ignore rules: ${result.stats.ignored ?? 0} failures ignored`];
  for (const rule of rules) {
    const what = [rule.rule, rule.selector && `at ${rule.selector}`, rule.url && `on ${rule.url}`]
      .filter(Boolean)
      .join(' ');
    lines.push(
      rule.status === 'active'
        ? `  in force until ${rule.expires}, hides ${rule.matched}: ${what} — ${rule.reason}`
        : `  EXPIRED ${rule.expires}, no longer hides ${rule.matched}: ${what} — ${rule.reason}`,
    );
  }
  return lines;
}
