import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

// Shared by every service's Chromium tests (identity's pages, the dashboard's web app).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page at WCAG 2.2 AA and fails with the rules broken. The source goes in through
 * the DevTools protocol (page.evaluate), which the page's CSP does not govern, so the policy stays on.
 */
export async function assertAccessible(
  page: Page,
  what: string,
  /** A selector of the part to check, when only it is in question; the whole document by default. */
  within?: string,
): Promise<void> {
  // Two frames first: a change of colour scheme or size just emulated reaches the page's media listeners (the SQL
  // editor's theme follows one) before the next frame, and axe must see the page after them, not between. A page in a
  // background tab draws no frames: a timer ends the wait there.
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        setTimeout(resolve, 250);
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      }),
  );
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (within) => {
    const g = globalThis as unknown as {
      document: unknown;
      axe: {
        run(
          context: unknown,
          options: unknown,
        ): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }>;
      };
    };
    const result = await g.axe.run(within ?? g.document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] },
    });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  }, within);
  assert.deepEqual(violations, [], `${what}: axe found WCAG 2.2 AA violations`);
}
