import type { Frame, Page } from 'playwright-core';
import { installInto, type Helpers } from './in-page.ts';

/** Tab presses at most per page: a page with thousands of focusable elements is walked this far, and the result says so. */
export const MAX_TAB_PRESSES = 400;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where one Tab press left the focus. */
export interface FocusStop {
  /** axe's target shape: the frames' selectors from the top document, then the element's. */
  target: Array<string | string[]>;
  /** The target as one string, to tell stops apart. */
  key: string;
  html: string;
  /** Focus is on no element (the document, or the browser's own controls after the last element). */
  none: boolean;
  /** The element's box in the top viewport, at the moment it had focus. */
  rect: Rect | null;
  /** The top document's scroll offset then, so boxes of different moments compare in page coordinates. */
  scroll: { x: number; y: number };
  /** The element or an ancestor is `position: fixed` or `sticky`: its place on the page does not follow reading order. */
  pinned: boolean;
  /** Of the points sampled in the element's visible box, how many the author's fixed or sticky content covers. */
  covered: number;
  sampled: number;
  /** Selector and markup of what covers it, when something does. */
  coveredBy: { target: string; html: string } | null;
}

export interface Trap {
  /** The elements focus keeps cycling among. */
  stops: FocusStop[];
  /** Tab-reachable elements the trap keeps out of reach. */
  outside: number;
  /**
   * The cycle is inside a dialog (`dialog`, role `dialog` or `alertdialog`, `aria-modal`): keeping focus in is what
   * a modal dialog must do, and it may be left by a close button rather than Escape, which only a person can tell.
   */
  inDialog: boolean;
}

export interface KeyboardWalk {
  stops: FocusStop[];
  /** Tab-reachable elements counted in the page and its same-origin frames before the walk. */
  tabbables: number;
  /** The walk stopped at MAX_TAB_PRESSES (or its time) before focus came back around. */
  capped: boolean;
  trap: Trap | null;
}

type H = { __a11yChecks: Helpers };

/**
 * Walks the page with real Tab presses from its start until focus leaves the last element (or comes back to
 * one already seen), recording each element focus lands on, where it is and whether pinned content covers it.
 * A cycle that never leaves a group of elements is then tried with Shift+Tab and Escape before it is called a
 * trap. Bounded by `MAX_TAB_PRESSES` and `deadline`.
 */
export async function walkKeyboard(page: Page, deadline: number): Promise<KeyboardWalk> {
  await page.mouse.move(0, 0);
  await installInto(page.mainFrame());
  const tabbables = await countTabbables(page);
  const limit = Math.min(MAX_TAB_PRESSES, tabbables * 2 + 10);
  const stops: FocusStop[] = [];
  const seen = new Map<string, number>();
  let capped = true;
  let trap: Trap | null = null;
  for (let press = 0; press < limit && Date.now() < deadline; press++) {
    await page.keyboard.press('Tab');
    const stop = await readStop(page);
    if (stop.none) {
      if (stops.length > 0 || press > 0) {
        capped = false;
        break;
      }
      continue;
    }
    const first = seen.get(stop.key);
    if (first !== undefined) {
      capped = false;
      const cycle = stops.slice(first);
      if (await confirmTrap(page, cycle, tabbables))
        trap = { stops: cycle, outside: Math.max(0, tabbables - cycle.length), inDialog: await focusInDialog(page) };
      break;
    }
    seen.set(stop.key, stops.length);
    stops.push(stop);
  }
  return { stops, tabbables, capped, trap };
}

/**
 * A cycle is a trap when the page has Tab-reachable elements outside it and neither Shift+Tab nor Escape takes
 * focus out (a modal dialog that closes on Escape keeps focus in on purpose and is no trap). A cycle through
 * every element of the page is the page wrapping around, not a trap.
 */
async function confirmTrap(page: Page, cycle: FocusStop[], tabbables: number): Promise<boolean> {
  if (tabbables <= cycle.length) return false;
  const inside = new Set(cycle.map((s) => s.key));
  for (let i = 0; i < cycle.length + 2; i++) {
    await page.keyboard.press('Shift+Tab');
    const stop = await readStop(page);
    if (stop.none || !inside.has(stop.key)) return false;
  }
  await page.keyboard.press('Escape');
  for (let i = 0; i < cycle.length + 1; i++) {
    await page.keyboard.press('Tab');
    const stop = await readStop(page);
    if (stop.none || !inside.has(stop.key)) return false;
  }
  return true;
}

/** Elements Tab can reach: focusable, not disabled, not inert, rendered; counted in same-origin frames too. */
async function countTabbables(page: Page): Promise<number> {
  let total = 0;
  for (const frame of page.frames()) {
    total += await frame
      .evaluate(() => {
        const candidates = document.querySelectorAll(
          'a[href], area[href], button, input:not([type="hidden"]), select, textarea, iframe, summary, audio[controls], video[controls], [contenteditable]:not([contenteditable="false"]), [tabindex]',
        );
        let n = 0;
        for (const el of Array.from(candidates) as HTMLElement[]) {
          if (el.tabIndex < 0 || (el as HTMLButtonElement).disabled || el.closest('[inert]')) continue;
          if (el.localName === 'iframe') continue;
          const r = el.getBoundingClientRect();
          const style = getComputedStyle(el);
          if (r.width === 0 && r.height === 0 && style.overflow === 'visible') continue;
          if (style.visibility === 'hidden' || style.display === 'none') continue;
          n++;
        }
        return n;
      })
      .catch(() => 0);
  }
  return total;
}

interface FrameRead {
  none: boolean;
  selector: string[];
  html: string;
  isFrame: boolean;
  rect: Rect;
}

/** The focused element, followed into frames, with its box and whether pinned content covers it. */
export async function readStop(page: Page): Promise<FocusStop> {
  let frame: Frame = page.mainFrame();
  const target: Array<string | string[]> = [];
  let offset = { x: 0, y: 0 };
  let last: FrameRead | null = null;
  for (let depth = 0; depth < 5; depth++) {
    await installInto(frame).catch(() => {});
    const read: FrameRead | null = await frame
      .evaluate(() => {
        const h = (globalThis as unknown as H).__a11yChecks;
        const el = h.deepActive();
        if (!el || el === document.body || el === document.documentElement) return null;
        const r = el.getBoundingClientRect();
        return {
          none: false,
          selector: h.selector(el),
          html: h.html(el),
          isFrame: el.localName === 'iframe' || el.localName === 'frame',
          rect: { x: r.x, y: r.y, width: r.width, height: r.height },
        };
      })
      .catch(() => null);
    if (!read) break;
    target.push(read.selector.length === 1 ? read.selector[0]! : read.selector);
    last = { ...read, rect: { ...read.rect, x: read.rect.x + offset.x, y: read.rect.y + offset.y } };
    if (!read.isFrame) break;
    const handle = await frame.evaluateHandle(() => (globalThis as unknown as H).__a11yChecks.deepActive());
    const child = await handle
      .asElement()
      ?.contentFrame()
      .catch(() => null);
    await handle.dispose();
    if (!child) break;
    offset = { x: last.rect.x, y: last.rect.y };
    frame = child;
  }
  const scroll = await page.evaluate(() => ({ x: scrollX, y: scrollY }));
  if (!last)
    return {
      target: [],
      key: '',
      html: '',
      none: true,
      rect: null,
      scroll,
      pinned: false,
      covered: 0,
      sampled: 0,
      coveredBy: null,
    };
  // A frame whose own document has focus on nothing is itself the stop.
  const cover = await coverage(page, last.rect);
  return {
    target,
    key: JSON.stringify(target),
    html: last.html,
    none: false,
    rect: last.rect,
    scroll,
    ...cover,
  };
}

/**
 * Samples a 3×3 grid of points in the focused element's box (within the viewport) and counts those whose topmost
 * element is `position: fixed` or `sticky` content outside the focused element: a sticky header, a cookie
 * banner, a chat button. Runs in the top document, where a focused element inside a frame or a shadow root is
 * its frame or host.
 */
async function coverage(
  page: Page,
  rect: Rect,
): Promise<Pick<FocusStop, 'pinned' | 'covered' | 'sampled' | 'coveredBy'>> {
  return page.evaluate((r) => {
    const h = (globalThis as unknown as H).__a11yChecks;
    const self = document.activeElement;
    const pinnedOf = (el: Element | null): Element | null => {
      for (let e = el; e; e = e.parentElement) {
        const p = getComputedStyle(e).position;
        if (p === 'fixed' || p === 'sticky') return e;
      }
      return null;
    };
    const pinned = pinnedOf(self) !== null;
    const left = Math.max(r.x, 0);
    const top = Math.max(r.y, 0);
    const right = Math.min(r.x + r.width, innerWidth);
    const bottom = Math.min(r.y + r.height, innerHeight);
    let covered = 0;
    let sampled = 0;
    let coveredBy: { target: string; html: string } | null = null;
    if (!self || right - left < 1 || bottom - top < 1) return { pinned, covered, sampled, coveredBy };
    for (const fx of [0.15, 0.5, 0.85])
      for (const fy of [0.15, 0.5, 0.85]) {
        const hit = document.elementFromPoint(left + (right - left) * fx, top + (bottom - top) * fy);
        sampled++;
        if (!hit || hit === self || self.contains(hit) || hit.contains(self)) continue;
        const cover = pinnedOf(hit);
        if (!cover || cover.contains(self)) continue;
        covered++;
        coveredBy ??= { target: h.selector(cover).join(' >> '), html: h.html(cover) };
      }
    return { pinned, covered, sampled, coveredBy };
  }, rect);
}

/** Whether the focused element (followed into frames) is inside a dialog. */
async function focusInDialog(page: Page): Promise<boolean> {
  let frame: Frame = page.mainFrame();
  for (let depth = 0; depth < 5; depth++) {
    const read = await frame
      .evaluate(() => {
        const el = (globalThis as unknown as H).__a11yChecks.deepActive();
        return {
          dialog: !!el?.closest('dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]'),
          isFrame: el?.localName === 'iframe' || el?.localName === 'frame',
        };
      })
      .catch(() => ({ dialog: false, isFrame: false }));
    if (read.dialog) return true;
    if (!read.isFrame) return false;
    const handle = await frame.evaluateHandle(() => (globalThis as unknown as H).__a11yChecks.deepActive());
    const child = await handle
      .asElement()
      ?.contentFrame()
      .catch(() => null);
    await handle.dispose();
    if (!child) return false;
    frame = child;
  }
  return false;
}
