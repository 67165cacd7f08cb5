import type { Page } from 'playwright-core';
import { installInto, type Helpers } from './in-page.ts';
import { readStop, type FocusStop, type Rect } from './keyboard-walk.ts';
import { contrast, decodePng, luminance, type Pixels } from './png.ts';

/** Elements whose focused look is photographed at most per page (two screenshots each). */
export const MAX_LOOKS = 40;
/** Around the element: outlines, `outline-offset` and box shadows are drawn outside its box. */
const NEAR = 8;
/** Further out: an indicator drawn on a wrapper or a label close by, which only a person can attribute. */
const AROUND = 40;
/** Below this contrast between the same pixel focused and not, a change is not taken as visible. */
const VISIBLE_CHANGE = 1.1;

/** How an element looked focused against unfocused, pixel for pixel. */
export interface FocusLook {
  stop: FocusStop;
  /** The element was outside the viewport while it had focus. */
  offscreen: boolean;
  /** Pixels within NEAR of the element that changed visibly, and of those how many at 3:1 or more. */
  changed: number;
  strong: number;
  /** Pixels between NEAR and AROUND that changed visibly. */
  changedAround: number;
  /** Area of a 2 CSS px thick perimeter of the unfocused element (2.4.13's minimum). */
  perimeter: number;
}

export interface FocusLooks {
  looks: FocusLook[];
  /** Elements focus reached beyond MAX_LOOKS or the time, not photographed. */
  skipped: boolean;
}

type H = { __a11yChecks: Helpers };

/**
 * Tabs through the page again and, for each element of the top document, screenshots the area around it
 * focused, then blurs it (which leaves the browser's sequential focus starting point there, so the next Tab
 * goes on from it) and screenshots the same area unfocused. Animations are finished and the caret hidden, so
 * the difference is the focus indicator.
 */
export async function lookAtFocus(page: Page, deadline: number): Promise<FocusLooks> {
  await page.mouse.move(0, 0);
  await installInto(page.mainFrame());
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur?.();
    scrollTo(0, 0);
  });
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  const looks: FocusLook[] = [];
  const seen = new Set<string>();
  let skipped = false;
  for (let press = 0; press < MAX_LOOKS * 2; press++) {
    if (looks.length >= MAX_LOOKS || Date.now() >= deadline) {
      skipped = true;
      break;
    }
    await page.keyboard.press('Tab');
    const stop = await readStop(page);
    if (stop.none || seen.has(stop.key)) break;
    seen.add(stop.key);
    // Inside a frame, blurring and photographing would be the frame's business; the top document's elements only.
    if (stop.target.length !== 1 || !stop.rect) continue;
    const outer = clipOf(stop.rect, AROUND, viewport);
    if (!outer) {
      looks.push({ stop, offscreen: true, changed: 0, strong: 0, changedAround: 0, perimeter: 0 });
      await blur(page);
      continue;
    }
    const focused = decodePng(await page.screenshot({ clip: outer, animations: 'disabled', caret: 'hide' }));
    await blur(page);
    const unfocused = decodePng(await page.screenshot({ clip: outer, animations: 'disabled', caret: 'hide' }));
    looks.push({ stop, offscreen: false, ...compare(focused, unfocused, outer, stop.rect) });
  }
  return { looks, skipped };
}

async function blur(page: Page): Promise<void> {
  await page.evaluate(() => {
    const el = (globalThis as unknown as H).__a11yChecks.deepActive() as HTMLElement | null;
    el?.blur?.();
  });
}

function clipOf(rect: Rect, pad: number, viewport: { width: number; height: number }): Rect | null {
  const x = Math.max(0, Math.floor(rect.x - pad));
  const y = Math.max(0, Math.floor(rect.y - pad));
  const right = Math.min(viewport.width, Math.ceil(rect.x + rect.width + pad));
  const bottom = Math.min(viewport.height, Math.ceil(rect.y + rect.height + pad));
  if (right - x < 1 || bottom - y < 1) return null;
  if (rect.x + rect.width <= 0 || rect.y + rect.height <= 0 || rect.x >= viewport.width || rect.y >= viewport.height)
    return null;
  return { x, y, width: right - x, height: bottom - y };
}

function compare(
  focused: Pixels,
  unfocused: Pixels,
  clip: Rect,
  rect: Rect,
): Pick<FocusLook, 'changed' | 'strong' | 'changedAround' | 'perimeter'> {
  let changed = 0;
  let strong = 0;
  let changedAround = 0;
  const width = Math.min(focused.width, unfocused.width);
  const height = Math.min(focused.height, unfocused.height);
  // Screenshots are in device pixels; the clip in CSS pixels.
  const scale = focused.width / clip.width;
  for (let py = 0; py < height; py++)
    for (let px = 0; px < width; px++) {
      const o = (py * focused.width + px) * 4;
      const u = (py * unfocused.width + px) * 4;
      if (
        focused.data[o] === unfocused.data[u] &&
        focused.data[o + 1] === unfocused.data[u + 1] &&
        focused.data[o + 2] === unfocused.data[u + 2]
      )
        continue;
      const ratio = contrast(luminance(focused.data, o), luminance(unfocused.data, u));
      if (ratio < VISIBLE_CHANGE) continue;
      const x = clip.x + px / scale;
      const y = clip.y + py / scale;
      const near =
        x >= rect.x - NEAR && x < rect.x + rect.width + NEAR && y >= rect.y - NEAR && y < rect.y + rect.height + NEAR;
      if (!near) {
        changedAround++;
        continue;
      }
      changed++;
      if (ratio >= 3) strong++;
    }
  const area = scale * scale;
  return {
    changed: changed / area,
    strong: strong / area,
    changedAround: changedAround / area,
    perimeter: Math.max(0, 4 * (rect.width + rect.height) - 16),
  };
}
