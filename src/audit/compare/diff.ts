import type { Finding } from '../result/types.ts';
import { failureKey } from './failure-key.ts';

/** Two runs' failures side by side, each matched by its failure key (rule, page path, element). */
export interface FindingsDiff {
  /** In the newer run only: failures it introduced. */
  added: Finding[];
  /** In the older run only: failures the newer run no longer has. */
  fixed: Finding[];
  /** In both: as the newer run reports them. */
  remaining: Finding[];
}

/**
 * What changed between an older and a newer run of the same site: the CI gate's new failures (src/audit/ci/gate.ts)
 * and the console's comparison both read it. An element failing a rule twice on one page is one key: it stays one
 * failure whether one or both runs list it twice.
 */
export function diffFindings(older: readonly Finding[], newer: readonly Finding[]): FindingsDiff {
  const before = new Set(older.map(failureKey));
  const after = new Set(newer.map(failureKey));
  return {
    added: newer.filter((f) => !before.has(failureKey(f))),
    fixed: older.filter((f) => !after.has(failureKey(f))),
    remaining: newer.filter((f) => before.has(failureKey(f))),
  };
}
