import type { Result } from 'axe-core';
import type { FrameLocator, Page } from 'playwright-core';
import { selectorOf } from '../findings.ts';

/** Failing elements photographed at most per page. */
export const MAX_SHOTS_PER_PAGE = 10;
/** A screenshot larger than this (JPEG) is left out: the result carries them. */
export const MAX_SHOT_BYTES = 20_000;
/** The crop around an element at most, in CSS px: a small picture of where it is, not the page. */
const MAX_WIDTH = 480;
const MAX_HEIGHT = 270;
const PAD = 12;

/** The key a finding's screenshot is found by: its rule and selector. */
export function shotKey(ruleId: string, selector: string): string {
  return `${ruleId} ${selector}`;
}

/**
 * A small cropped JPEG of each failing element (up to MAX_SHOTS_PER_PAGE, in the order of the results), outlined in
 * red by an overlay that is removed again, as `data:` URIs by `shotKey`. An element that cannot be found, has no
 * box or whose picture is too large is left out; so is everything past `deadline`.
 */
export async function shootFailures(
  page: Page,
  violations: Result[],
  deadline: number,
): Promise<Record<string, string>> {
  const shots: Record<string, string> = {};
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  let taken = 0;
  for (const rule of violations) {
    for (const node of rule.nodes) {
      if (taken >= MAX_SHOTS_PER_PAGE || Date.now() >= deadline || page.isClosed()) return shots;
      const key = shotKey(rule.id, selectorOf(node.target));
      if (shots[key]) continue;
      const shot = await shoot(page, node.target as unknown as Array<string | string[]>, viewport).catch(() => null);
      if (!shot || shot.length > MAX_SHOT_BYTES) continue;
      shots[key] = `data:image/jpeg;base64,${shot.toString('base64')}`;
      taken++;
    }
  }
  return shots;
}

async function shoot(
  page: Page,
  target: Array<string | string[]>,
  viewport: { width: number; height: number },
): Promise<Buffer | null> {
  if (target.length === 0) return null;
  let scope: Page | FrameLocator = page;
  // Playwright's CSS engine enters open shadow roots by itself, so a shadow path is its selectors in a row.
  const css = (part: string | string[]) => (Array.isArray(part) ? part.join(' ') : part);
  for (const frame of target.slice(0, -1)) scope = scope.frameLocator(css(frame));
  const element = scope.locator(css(target[target.length - 1]!)).first();
  await element.scrollIntoViewIfNeeded({ timeout: 1000 });
  const box = await element.boundingBox({ timeout: 1000 });
  if (!box || box.width < 1 || box.height < 1) return null;
  const x = Math.max(0, Math.floor(box.x - PAD));
  const y = Math.max(0, Math.floor(box.y - PAD));
  const width = Math.min(MAX_WIDTH, viewport.width - x, Math.ceil(box.width + 2 * PAD));
  const height = Math.min(MAX_HEIGHT, viewport.height - y, Math.ceil(box.height + 2 * PAD));
  if (width < 1 || height < 1) return null;
  await page.evaluate((b) => {
    const outline = document.createElement('div');
    outline.id = '__a11y-shot-outline';
    outline.style.cssText = `position:fixed;left:${b.x - 3}px;top:${b.y - 3}px;width:${b.width + 6}px;height:${b.height + 6}px;outline:3px solid #d0021b;box-shadow:0 0 0 6px #fff;pointer-events:none;z-index:2147483647`;
    document.documentElement.append(outline);
  }, box);
  try {
    return await page.screenshot({
      type: 'jpeg',
      quality: 60,
      clip: { x, y, width, height },
      animations: 'disabled',
      caret: 'hide',
    });
  } finally {
    await page.evaluate(() => document.getElementById('__a11y-shot-outline')?.remove()).catch(() => {});
  }
}
