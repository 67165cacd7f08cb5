import { textClippedBy } from './clipped-text.ts';
import { INAPPLICABLE, outcome, type BrowserCheck } from './types.ts';
import { understanding } from './understanding.ts';

/** 1.4.4 Resize Text: every text at twice its size, as text-only zoom at 200 %; none of it may be cut off (ACT 59br37). */
export const resizeText: BrowserCheck = {
  rule: {
    id: 'resize-text',
    description: 'Ensures no text is cut off when text is resized to 200 %',
    help: 'Text must stay readable at 200 % text size',
    helpUrl: understanding('resize-text'),
    tags: ['wcag2aa', 'wcag144'],
    actIds: ['59br37'],
    impact: 'serious',
  },
  async run(ctx) {
    const { clipped, texts } = await textClippedBy(
      ctx.page,
      (page) =>
        page.evaluate(() => {
          // Every element's size is read first, then set: a child's computed size must be its own, not its doubled parent's.
          const els = Array.from(document.body?.querySelectorAll('*') ?? []).slice(0, 5000) as HTMLElement[];
          const sizes = els.map((el) => parseFloat(getComputedStyle(el).fontSize));
          const g = globalThis as unknown as { __a11yStyles?: Array<[HTMLElement, string | null]> };
          g.__a11yStyles = els.map((el) => [el, el.getAttribute('style')]);
          els.forEach((el, i) => {
            if (sizes[i]! > 0) el.style.setProperty('font-size', `${sizes[i]! * 2}px`, 'important');
          });
        }),
      (page) =>
        page.evaluate(() => {
          const g = globalThis as unknown as { __a11yStyles?: Array<[HTMLElement, string | null]> };
          for (const [el, style] of g.__a11yStyles ?? []) {
            if (style === null) el.removeAttribute('style');
            else el.setAttribute('style', style);
          }
          delete g.__a11yStyles;
        }),
    );
    if (texts === 0) return INAPPLICABLE;
    return outcome(
      clipped.map((c) => ({
        target: [c.target.length === 1 ? c.target[0]! : c.target],
        html: c.html,
        summary: `Fix this: with text at 200 %, ${c.lostY > 1 ? `${Math.round(c.lostY)} px of its text is cut off at the bottom` : `${Math.round(c.lostX)} px of its text is cut off at the side`} (overflow: hidden). Size the box in em or let it grow (min-height), or let it scroll.`,
      })),
    );
  },
};
