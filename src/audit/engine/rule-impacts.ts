import type { Page } from 'playwright-core';
import type { Impact } from '../result/types.ts';
import { browserCheckImpact } from './checks/registry.ts';

/** Each axe rule's own impact, read once from the injected axe: a passed rule has no impact in the results, yet weighs in the score. */
let ruleImpacts: Map<string, Impact | null> | null = null;

/** A rule's own impact: axe's, or a deep check's. */
export function ruleImpact(ruleId: string): Impact | null {
  return ruleImpacts?.get(ruleId) ?? browserCheckImpact(ruleId);
}

/** Reads the rules' impacts from a page axe ran in, the first time only. */
export async function learnRuleImpacts(page: Page): Promise<void> {
  if (!ruleImpacts) ruleImpacts = await readRuleImpacts(page);
}

async function readRuleImpacts(page: Page): Promise<Map<string, Impact | null>> {
  const pairs = await page
    .evaluate(() => {
      const audit = (globalThis as unknown as { axe?: { _audit?: { rules?: Array<{ id: string; impact?: string }> } } })
        .axe?._audit;
      return (audit?.rules ?? []).map((r) => [r.id, r.impact ?? null] as const);
    })
    .catch(() => [] as Array<readonly [string, string | null]>);
  return new Map(pairs.map(([id, impact]) => [id, (impact ?? null) as Impact | null]));
}
