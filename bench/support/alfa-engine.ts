import { Audit, type Rule } from '@siteimprove/alfa-act';
import type { Hashable } from '@siteimprove/alfa-hash';
import { Playwright } from '@siteimprove/alfa-playwright';
import { Rules } from '@siteimprove/alfa-rules';
import { Criterion } from '@siteimprove/alfa-wcag';
import type { Page } from '@siteimprove/alfa-web';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/kit/browser.ts';

// Siteimprove Alfa as a second engine: the page is loaded in Chromium, serialized once (DOM, styles, viewport)
// and every rule of alfa-rules evaluates it in Node. Outcomes are kept by WCAG criterion, since Alfa's rules
// (sia-r…) and ours are not the same rules.

export interface AlfaPageOutcome {
  /** Criteria with at least one failed outcome. */
  failed: Set<string>;
  /** Criteria with an outcome Alfa cannot tell (a question for a person). */
  cantTell: Set<string>;
  /** Alfa rules that failed, e.g. "sia-r65 (2.4.7)". */
  failedRules: string[];
  ms: number;
}

// Each rule has its own target type; the audit takes them as rules of a page whatever their targets.
const RULES = [...Rules.values()] as unknown as Array<Rule<Page, Hashable>>;

function criteriaOf(rule: { requirements: ReadonlyArray<unknown> }): string[] {
  return rule.requirements.filter((r): r is Criterion => r instanceof Criterion).map((r) => r.chapter);
}

export async function startAlfa(chromiumPath: string): Promise<{
  audit(url: string): Promise<AlfaPageOutcome>;
  close(): Promise<void>;
}> {
  const browser: Browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  return {
    async audit(url) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load' });
        const t0 = performance.now();
        const document = await page.evaluateHandle(() => window.document);
        const alfaPage = await Playwright.toPage(document);
        const failed = new Set<string>();
        const cantTell = new Set<string>();
        const failedRules = new Set<string>();
        for (const o of await Audit.of(alfaPage, RULES).evaluate()) {
          if (o.outcome !== 'failed' && o.outcome !== 'cantTell') continue;
          const criteria = criteriaOf(o.rule);
          for (const c of criteria) (o.outcome === 'failed' ? failed : cantTell).add(c);
          if (o.outcome === 'failed')
            failedRules.add(`${o.rule.uri.split('/').pop()} (${criteria.join(', ') || 'no criterion'})`);
        }
        return { failed, cantTell, failedRules: [...failedRules], ms: performance.now() - t0 };
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}
