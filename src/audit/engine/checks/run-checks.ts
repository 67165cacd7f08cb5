import type { NodeResult, Result } from 'axe-core';
import type { Page } from 'playwright-core';
import type { RuleRef } from '../page-audit.ts';
import { lookAtFocus, type FocusLooks } from './focus-looks.ts';
import { walkKeyboard, type KeyboardWalk } from './keyboard-walk.ts';
import { checksFor } from './registry.ts';
import type { BrowserCheck, CheckContext, CheckNode, CheckOutcome } from './types.ts';

export interface BrowserCheckResults {
  violations: Result[];
  incomplete: Result[];
  passed: RuleRef[];
  inapplicable: RuleRef[];
  /** Milliseconds each check took, by rule id (the walks count in the first check that needed them). */
  timings: Record<string, number>;
}

/** The share of the deep budget one check may use at most, so one slow check leaves time for the others. */
const SHARE = 0.4;

/** An ACT rule id as a tag, the way axe tags its rules' ACT mappings in results: `act-80af7b`. */
export function actTag(id: string): string {
  return `act-${id}`;
}

/**
 * Runs the deep audit's checks that the audit's tags select on a loaded page, after axe, each bounded in time
 * (its share of `budgetMs`, and what is left of it), and answers their outcomes in axe's own result shape so
 * findings, needs-review items, rule outcomes, the score and OpenACR take them as they take axe's. A check that
 * fails to run is reported for review with its error, never as a failure of the page.
 */
export async function runBrowserChecks(
  page: Page,
  tags: readonly string[],
  budgetMs: number,
  maxElements: number,
): Promise<BrowserCheckResults> {
  const end = Date.now() + budgetMs;
  let walk: Promise<KeyboardWalk> | null = null;
  let looks: Promise<FocusLooks> | null = null;
  const out: BrowserCheckResults = { violations: [], incomplete: [], passed: [], inapplicable: [], timings: {} };
  for (const check of checksFor(tags)) {
    const started = Date.now();
    const deadline = Math.min(end, started + budgetMs * SHARE);
    const ctx: CheckContext = {
      page,
      deadline,
      walk: () => (walk ??= walkKeyboard(page, deadline)),
      focusLooks: () => (looks ??= lookAtFocus(page, deadline)),
      frames: () => page.frames(),
    };
    const result = await runOne(check, ctx);
    out.timings[check.rule.id] = Date.now() - started;
    add(out, check, result, maxElements);
    if (page.isClosed()) break;
  }
  return out;
}

async function runOne(check: BrowserCheck, ctx: CheckContext): Promise<CheckOutcome> {
  if (Date.now() >= ctx.deadline)
    return { applicable: true, failures: [], review: [stopped('the deep audit ran out of time before this check')] };
  try {
    return await check.run(ctx);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { applicable: true, failures: [], review: [stopped(`the check could not complete: ${message}`)] };
  }
}

function stopped(why: string): CheckNode {
  return { target: ['html'], html: '<html>', summary: `Not checked: ${why}.` };
}

function add(out: BrowserCheckResults, check: BrowserCheck, result: CheckOutcome, maxElements: number): void {
  const { rule } = check;
  const ref = { id: rule.id, tags: [...rule.tags, ...rule.actIds.map(actTag)] };
  // A rule that only asks a person is evidence of nothing when it has no question: neither passed nor inapplicable,
  // so its criterion stays for a person to evaluate (OpenACR: not evaluated).
  if (rule.review?.only && result.review.length === 0) return;
  if (!result.applicable) {
    out.inapplicable.push(ref);
    return;
  }
  const shape = (nodes: CheckNode[]): Result => ({
    id: rule.id,
    impact: rule.impact,
    tags: ref.tags,
    description: rule.description,
    help: rule.help,
    helpUrl: rule.helpUrl,
    nodes: nodes.slice(0, maxElements).map(
      (n): NodeResult => ({
        html: n.html,
        target: n.target as NodeResult['target'],
        impact: rule.impact,
        failureSummary: n.summary,
        any: [{ id: rule.id, data: null, relatedNodes: [], impact: rule.impact, message: n.summary }],
        all: [],
        none: [],
      }),
    ),
  });
  if (result.failures.length > 0) out.violations.push(shape(result.failures));
  if (result.review.length > 0) out.incomplete.push(shape(result.review));
  if (result.failures.length === 0 && !rule.review?.only) out.passed.push(ref);
}
