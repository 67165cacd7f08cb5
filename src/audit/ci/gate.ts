import { IMPACTS, type AuditResult, type Finding, type Impact } from '../result/types.ts';
import { diffFindings } from '../compare/diff.ts';
import { pagePath } from '../compare/failure-key.ts';

/** What a CI run must meet; a threshold left out is not checked. */
export interface Thresholds {
  /** The audit's score must be at least this (0–100). */
  minScore?: number | undefined;
  /** No failure of this impact or a more severe one. */
  failOn?: Impact | undefined;
  /** No failure that the baseline run did not have. */
  newFailures?: boolean | undefined;
}

/** The run new failures are counted against, and how the summary names it. */
export interface Baseline {
  result: AuditResult;
  source: string;
}

/**
 * A CI run's exit codes, beside the `platform` command's own 0 (passed), 1 (could not run) and 2 (usage): one per
 * threshold, so a script can tell which failed. When several fail, the lowest of theirs.
 */
export const GATE_EXIT = { minScore: 3, failOn: 4, newFailures: 5 } as const;

export interface GateCheck {
  threshold: keyof typeof GATE_EXIT;
  passed: boolean;
  /** One line for a person reading the CI log. */
  line: string;
  /** The failures behind a failed check, one a line (at most 20, then a count). */
  details: string[];
}

export interface GateOutcome {
  checks: GateCheck[];
  /** 0 when every check passed, else the lowest exit code among the failed ones. */
  exitCode: number;
}

/** Failures a gate counts: every listed finding no ignore rule in force matches. */
export function countedFindings(result: AuditResult): Finding[] {
  return result.findings.filter((f) => !f.ignored);
}

/**
 * Checks a result against the thresholds. `baseline` is the run to compare with, `null` when new failures are
 * checked but no baseline run exists yet (the first run of a branch): then nothing is new, and the line says so.
 */
export function evaluateGate(
  result: AuditResult,
  thresholds: Thresholds,
  baseline: Baseline | null,
  baselineMissing = 'no baseline run was found',
): GateOutcome {
  const checks: GateCheck[] = [];
  if (thresholds.minScore !== undefined) checks.push(scoreCheck(result, thresholds.minScore));
  if (thresholds.failOn !== undefined) checks.push(impactCheck(result, thresholds.failOn));
  if (thresholds.newFailures) checks.push(newFailuresCheck(result, baseline, baselineMissing));
  const failed = checks.filter((c) => !c.passed).map((c) => GATE_EXIT[c.threshold]);
  return { checks, exitCode: failed.length ? Math.min(...failed) : 0 };
}

function scoreCheck(result: AuditResult, minScore: number): GateCheck {
  const passed = result.score >= minScore;
  return {
    threshold: 'minScore',
    passed,
    line: `score ${result.score} ${passed ? '≥' : '<'} the minimum ${minScore}`,
    details: [],
  };
}

function impactCheck(result: AuditResult, failOn: Impact): GateCheck {
  const severe = IMPACTS.slice(0, IMPACTS.indexOf(failOn) + 1);
  const failing = countedFindings(result).filter((f) => severe.includes(f.impact));
  const counts = severe.map((impact) => [impact, failing.filter((f) => f.impact === impact).length] as const);
  const worse = failOn === 'critical' ? 'critical' : `${failOn} or worse`;
  return {
    threshold: 'failOn',
    passed: failing.length === 0,
    line:
      failing.length === 0
        ? `no failure of impact ${worse}`
        : `${failing.length} ${failing.length === 1 ? 'failure' : 'failures'} of impact ${worse} (${counts
            .filter(([, n]) => n > 0)
            .map(([impact, n]) => `${impact} ${n}`)
            .join(', ')})`,
    details: listed(failing),
  };
}

function newFailuresCheck(result: AuditResult, baseline: Baseline | null, baselineMissing: string): GateCheck {
  if (!baseline)
    return {
      threshold: 'newFailures',
      passed: true,
      line: `no new failures to count: ${baselineMissing}, so this run has nothing to be compared with`,
      details: [],
    };
  const { added } = diffFindings(baseline.result.findings, countedFindings(result));
  return {
    threshold: 'newFailures',
    passed: added.length === 0,
    line:
      added.length === 0
        ? `no new failures against ${baseline.source}`
        : `${added.length} new ${added.length === 1 ? 'failure' : 'failures'} against ${baseline.source}`,
    details: listed(added),
  };
}

function listed(findings: readonly Finding[]): string[] {
  const lines = findings
    .slice(0, 20)
    .map((f) => `${f.impact} ${f.ruleId} on ${pagePath(f.pageUrl)} at ${f.selector}: ${f.summary}`);
  if (findings.length > 20) lines.push(`… and ${findings.length - 20} more`);
  return lines;
}
