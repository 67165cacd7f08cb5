import { readFileSync } from 'node:fs';
import { CommandFailure } from '../../kit/cli-runner.ts';
import type { AuditResult } from '../result/types.ts';
import type { Baseline } from './gate.ts';
import type { AuditServer } from './remote-run.ts';
import type { RunPlan } from './plan.ts';

/**
 * The run to compare with: a result file (`--result` of an earlier run, the service's JSON report, or a job with its
 * result), or the last completed run of a branch on the server (`--baseline-branch`, else this run's own `--branch`).
 * Null when new failures are not checked, or when the branch has no completed run yet.
 */
export async function loadBaseline(
  plan: RunPlan,
  server: AuditServer | null,
): Promise<{ baseline: Baseline | null; missing: string }> {
  if (!plan.thresholds.newFailures) return { baseline: null, missing: '' };
  if (plan.baseline.file) return { baseline: baselineFile(plan.baseline.file), missing: '' };
  const branch = plan.baseline.branch ?? plan.branch;
  if (!server || !branch) return { baseline: null, missing: 'no baseline was given' };
  const last = await server.lastRun(new URL(plan.url.trim()).href, branch);
  if (!last) return { baseline: null, missing: `the branch ${branch} has no completed run of this URL yet` };
  return {
    baseline: { result: last.result, source: `the last run of the branch ${branch} (${last.id}, ${last.finishedAt})` },
    missing: '',
  };
}

function baselineFile(path: string): Baseline {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandFailure(
      code
        ? `cannot read the baseline ${path}: ${code}`
        : `the baseline ${path} is not JSON: ${(err as Error).message}`,
    );
  }
  const result = (parsed as { result?: unknown }).result ?? parsed;
  const findings = (result as { findings?: unknown }).findings;
  const valid =
    Array.isArray(findings) &&
    findings.every(
      (f) =>
        typeof f === 'object' &&
        f !== null &&
        ['ruleId', 'selector', 'pageUrl'].every((k) => typeof (f as Record<string, unknown>)[k] === 'string'),
    );
  if (!valid)
    throw new CommandFailure(
      `the baseline ${path} is not an audit result (a findings list with ruleId, selector and pageUrl): write one with --result`,
    );
  return { result: result as AuditResult, source: `the baseline ${path}` };
}
