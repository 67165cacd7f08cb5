import { afterLayout } from './settle-frames.ts';
import { installInto, type Helpers } from './in-page.ts';
import { outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

type H = { __a11yChecks: Helpers };

/** 320 CSS px: 1280 px at 400 % zoom, the width 1.4.10 names. */
export const REFLOW_WIDTH = 320;
const MAX_LISTED = 20;

/**
 * 1.4.10 Reflow: at 320 CSS px wide the page must not scroll sideways, nor clip content off its side. The
 * elements sticking out are listed, the outermost ones only; content that needs two dimensions (tables, code,
 * video, maps, diagrams, toolbars) may, and so may anything inside its own scrolling box.
 */
export const reflow: BrowserCheck = {
  rule: {
    id: 'reflow',
    description: 'Ensures the page can be read at 320 CSS px wide without scrolling sideways',
    help: 'Content must reflow at 320 CSS px wide',
    helpUrl: understanding('reflow'),
    tags: ['wcag21aa', 'wcag1410'],
    actIds: [],
    impact: 'serious',
  },
  async run(ctx) {
    const { page } = ctx;
    const original = page.viewportSize();
    await page.setViewportSize({ width: REFLOW_WIDTH, height: 640 });
    try {
      await afterLayout(page);
      await installInto(page.mainFrame());
      const found = await page.evaluate((maxListed) => {
        const h = (globalThis as unknown as H).__a11yChecks;
        const root = document.scrollingElement ?? document.documentElement;
        scrollTo(0, scrollY);
        const width = root.clientWidth;
        const clips = (el: Element | null) => !!el && ['hidden', 'clip'].includes(getComputedStyle(el).overflowX);
        const rootClips = clips(document.documentElement) || clips(document.body);
        // overflow-x: hidden on the root or the body stops the page scrolling: what sticks out is then cut off instead.
        const scrolls = root.scrollWidth > width + 1 && !rootClips;
        if (!scrolls && !rootClips)
          return { scrolls, offenders: [] as Array<{ target: string[]; html: string; right: number }> };
        const exempt =
          'table, pre, code, video, canvas, svg, math, map, img[usemap], [role="grid"], [role="toolbar"], [role="application"], [role="img"]';
        const contained = (el: Element) => {
          for (
            let e = el.parentElement;
            e && e !== document.body && e !== document.documentElement;
            e = e.parentElement
          ) {
            const o = getComputedStyle(e).overflowX;
            if (o !== 'visible') return e.getBoundingClientRect().right <= width + 1;
          }
          return false;
        };
        // A fixed element parked past the right edge (a closed off-canvas menu) is out of the page, with all it holds.
        const parkedOff = (el: Element) => {
          for (let e: Element | null = el; e && e !== document.body; e = e.parentElement)
            if (getComputedStyle(e).position === 'fixed' && e.getBoundingClientRect().left >= width) return true;
          return false;
        };
        // Where the element's own text ends: a word that cannot wrap sticks out of its box while the box fits.
        const range = document.createRange();
        const textRight = (el: Element) => {
          if (getComputedStyle(el).overflowX !== 'visible') return 0;
          let right = 0;
          for (const n of Array.from(el.childNodes)) {
            if (n.nodeType !== Node.TEXT_NODE || !n.textContent?.trim()) continue;
            range.selectNodeContents(n);
            right = Math.max(right, range.getBoundingClientRect().right);
          }
          return right;
        };
        const offenders: Array<{ el: Element; right: number }> = [];
        const all = document.body ? Array.from(document.body.querySelectorAll('*')).slice(0, 5000) : [];
        for (const el of all) {
          if (offenders.some((o) => o.el.contains(el))) continue;
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || !h.visible(el)) continue;
          const right = Math.max(r.right, textRight(el));
          if (right <= width + 1) continue;
          if (parkedOff(el) || el.closest(exempt) || contained(el)) continue;
          offenders.push({ el, right });
          if (offenders.length >= maxListed) break;
        }
        return {
          scrolls,
          offenders: offenders.map(({ el, right }) => ({
            target: h.selector(el),
            html: h.html(el),
            right: Math.round(right),
          })),
        };
      }, MAX_LISTED);
      const failures: CheckNode[] = found.offenders.map((o) => ({
        target: [o.target.length === 1 ? o.target[0]! : o.target],
        html: o.html,
        summary: `Fix this: at ${REFLOW_WIDTH} CSS px wide this element reaches ${o.right} px, so the page ${found.scrolls ? 'scrolls sideways' : 'cuts it off'}. Let it wrap or shrink (max-width: 100%, flex-wrap, no fixed widths).`,
      }));
      return outcome(failures);
    } finally {
      if (original) await page.setViewportSize(original);
    }
  },
};
