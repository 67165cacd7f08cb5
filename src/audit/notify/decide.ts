import { failureKey } from '../compare/failure-key.ts';
import type { AuditResult, Finding } from '../result/types.ts';

/** A serious or critical failure a run found that the site's previous run did not. */
export interface NewFailure {
  ruleId: string;
  impact: 'critical' | 'serious';
  summary: string;
  selector: string;
  pageUrl: string;
  help: string;
}

export interface Regression {
  score: number;
  previousScore: number;
  /** How far the score fell; 0 when it did not. */
  scoreDrop: number;
  newFailures: NewFailure[];
}

/** New failures listed in one notice at most; the rest are counted. */
export const LISTED_FAILURES = 20;

const grave = (f: Finding): f is Finding & { impact: 'critical' | 'serious' } =>
  (f.impact === 'critical' || f.impact === 'serious') && !f.ignored;

/**
 * What a completed run tells its site's people, against the site's previous completed run: a lower score, and
 * serious or critical failures (by rule, page path and element, as the CI gate matches them; ignored ones aside)
 * the previous run did not have. Null when neither happened, or the settings ask for neither.
 */
export function regression(
  current: Pick<AuditResult, 'score' | 'findings'>,
  previous: Pick<AuditResult, 'score' | 'findings'>,
  wanted: { onScoreDrop: boolean; onNewFailures: boolean },
): (Regression & { newFailureCount: number }) | null {
  const scoreDrop = Math.max(0, Math.round((previous.score - current.score) * 10) / 10);
  const before = new Set(previous.findings.filter(grave).map(failureKey));
  const seen = new Set<string>();
  const fresh: NewFailure[] = [];
  for (const f of current.findings.filter(grave)) {
    const key = failureKey(f);
    if (before.has(key) || seen.has(key)) continue;
    seen.add(key);
    fresh.push({
      ruleId: f.ruleId,
      impact: f.impact,
      summary: f.summary,
      selector: f.selector,
      pageUrl: f.pageUrl,
      help: f.help,
    });
  }
  const dropped = wanted.onScoreDrop && scoreDrop > 0;
  const failed = wanted.onNewFailures && fresh.length > 0;
  if (!dropped && !failed) return null;
  return {
    score: current.score,
    previousScore: previous.score,
    scoreDrop: dropped ? scoreDrop : 0,
    newFailures: failed ? fresh.slice(0, LISTED_FAILURES) : [],
    newFailureCount: failed ? fresh.length : 0,
  };
}
