import type { Page } from 'playwright-core';
import { installInto, type Helpers } from './in-page.ts';
import { afterLayout } from './settle-frames.ts';

type H = { __a11yChecks: Helpers };

export interface ClippedText {
  target: string[];
  html: string;
  /** How many CSS px of its text no longer fit, down and across. */
  lostY: number;
  lostX: number;
}

const MAX_LISTED = 20;
const MAX_ELEMENTS = 5000;

/**
 * Elements with text that a change of text styles (`change`, undone by `undo`) makes overflow a box that hides its
 * overflow (`overflow: hidden` or `clip`, ellipsis included): text lost to the reader. Those that already
 * overflowed before the change are left out — the change did not cause it.
 */
export async function textClippedBy(
  page: Page,
  change: (page: Page) => Promise<void>,
  undo: (page: Page) => Promise<void>,
): Promise<{ clipped: ClippedText[]; texts: number }> {
  await installInto(page.mainFrame());
  await page.evaluate((max) => {
    const g = globalThis as unknown as { __a11yClipped?: Set<Element> };
    const overflowing = new Set<Element>();
    for (const el of Array.from(document.body?.querySelectorAll('*') ?? []).slice(0, max)) {
      if (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) overflowing.add(el);
    }
    g.__a11yClipped = overflowing;
  }, MAX_ELEMENTS);
  await change(page);
  try {
    await afterLayout(page);
    return await page.evaluate(
      ([max, maxListed]) => {
        const g = globalThis as unknown as { __a11yClipped?: Set<Element> } & H;
        const before = g.__a11yClipped ?? new Set<Element>();
        const h = g.__a11yChecks;
        const hides = (v: string) => v === 'hidden' || v === 'clip';
        const clipped: ClippedText[] = [];
        const clippedEls: Element[] = [];
        let texts = 0;
        for (const el of Array.from(document.body?.querySelectorAll('*') ?? []).slice(0, max)) {
          const text = (el as HTMLElement).innerText?.trim() ?? '';
          if (!text) continue;
          texts++;
          if (clipped.length >= maxListed || before.has(el) || !h.visible(el)) continue;
          const style = getComputedStyle(el);
          const lostY = hides(style.overflowY) ? el.scrollHeight - el.clientHeight : 0;
          const lostX = hides(style.overflowX) ? el.scrollWidth - el.clientWidth : 0;
          if (lostY <= 1 && lostX <= 1) continue;
          // The outermost clipping box says where the text is lost; a clipped child of a clipped box is the same loss.
          if (clippedEls.some((c) => c.contains(el))) continue;
          clippedEls.push(el);
          clipped.push({
            target: h.selector(el),
            html: h.html(el),
            lostY: Math.max(0, lostY),
            lostX: Math.max(0, lostX),
          });
        }
        delete g.__a11yClipped;
        return { clipped, texts };
      },
      [MAX_ELEMENTS, MAX_LISTED] as const,
    );
  } finally {
    await undo(page);
  }
}
