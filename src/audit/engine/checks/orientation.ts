import type { Page } from 'playwright-core';
import { installInto, type Helpers } from './in-page.ts';
import { afterLayout } from './settle-frames.ts';
import { outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

type H = { __a11yChecks: Helpers };

/**
 * Installed before the page's own scripts (page.addInitScript): records the orientations the page asks
 * `screen.orientation.lock` for, and lets the call go on as it would.
 */
export const ORIENTATION_PROBE = `(() => {
  const o = globalThis.screen && screen.orientation;
  if (!o || typeof o.lock !== 'function') return;
  const lock = o.lock.bind(o);
  globalThis.__a11yOrientationLocks = [];
  o.lock = (value) => { globalThis.__a11yOrientationLocks.push(String(value)); return lock(value); };
})();`;

interface Rotation {
  target: string[];
  html: string;
  angle: number;
}

/** Large elements' rotation from their transform and `rotate` property, in degrees, 0 to 180. */
async function rotations(page: Page): Promise<Rotation[]> {
  await installInto(page.mainFrame());
  return page.evaluate(() => {
    const h = (globalThis as unknown as H).__a11yChecks;
    const out: Rotation[] = [];
    const candidates = [document.documentElement, document.body, ...Array.from(document.body?.children ?? [])];
    for (const el of candidates) {
      if (!el) continue;
      const style = getComputedStyle(el);
      let angle = 0;
      if (style.transform && style.transform !== 'none') {
        const m = new DOMMatrixReadOnly(style.transform);
        angle = (Math.atan2(m.b, m.a) * 180) / Math.PI;
      }
      // The `rotate` property turns the element too, and `transform` does not show it: a plain angle, or one about
      // the z axis ("z 90deg", "0 0 1 90deg"), turns it in the page's plane and adds to the transform's.
      const rotate = /^(?:z |0 0 1 )?(-?[\d.]+)(deg|turn|rad|grad)$/.exec(style.rotate ?? '');
      if (rotate) {
        const per = { deg: 1, turn: 360, rad: 180 / Math.PI, grad: 0.9 }[rotate[2] as 'deg' | 'turn' | 'rad' | 'grad'];
        angle += Number(rotate[1]) * per;
      }
      angle = Math.round(angle);
      angle = ((angle % 180) + 180) % 180;
      out.push({ target: h.selector(el), html: h.html(el), angle });
    }
    return out;
  });
}

/**
 * 1.3.4 Orientation (ACT b33eff): the page in portrait and in landscape; an element of the page's main structure
 * turned a quarter in one of them (CSS `transform: rotate()` in an orientation media query) keeps the content in
 * one orientation, and so does a script's `screen.orientation.lock()` to one.
 */
export const orientation: BrowserCheck = {
  rule: {
    id: 'orientation-lock',
    description: 'Ensures the page does not restrict its content to portrait or landscape',
    help: 'Content must not be locked to one display orientation',
    helpUrl: understanding('orientation'),
    tags: ['wcag21aa', 'wcag134'],
    actIds: ['b33eff'],
    impact: 'serious',
  },
  async run(ctx) {
    const { page } = ctx;
    const original = page.viewportSize();
    const failures: CheckNode[] = [];
    try {
      await page.setViewportSize({ width: 600, height: 900 });
      await afterLayout(page);
      const portrait = await rotations(page);
      await page.setViewportSize({ width: 900, height: 600 });
      await afterLayout(page);
      const landscape = await rotations(page);
      for (const p of portrait) {
        const l = landscape.find((x) => x.target.join() === p.target.join());
        if (!l) continue;
        const turn = Math.abs(p.angle - l.angle);
        if (turn >= 80 && turn <= 100)
          failures.push({
            target: [p.target.length === 1 ? p.target[0]! : p.target],
            html: p.html,
            summary: `Fix this: this element is turned by ${turn}° in ${p.angle > l.angle ? 'portrait' : 'landscape'} compared with the other orientation, which keeps the content in one orientation. Do not rotate the page in an orientation media query; let the layout adapt.`,
          });
      }
    } finally {
      if (original) await page.setViewportSize(original);
    }
    const locks = await page.evaluate(
      () => (globalThis as unknown as { __a11yOrientationLocks?: string[] }).__a11yOrientationLocks ?? [],
    );
    const locked = locks.filter((l) => l !== 'any' && l !== 'natural');
    if (locked.length > 0)
      failures.push({
        target: ['html'],
        html: '<html>',
        summary: `Fix this: a script of the page locks the screen to ${locked.join(', ')} (screen.orientation.lock). Leave the orientation to the user unless it is essential.`,
      });
    return outcome(failures);
  },
};
