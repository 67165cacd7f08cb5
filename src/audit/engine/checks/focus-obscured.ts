import { INAPPLICABLE, outcome, type BrowserCheck, type CheckNode } from './types.ts';
import { understanding } from './understanding.ts';

const MAX_LISTED = 50;

/**
 * 2.4.11 Focus Not Obscured (Minimum): after Tab moved focus (and the browser scrolled to it, honouring
 * `scroll-padding`), every sampled point of the element is under the author's fixed or sticky content.
 */
export const focusObscured: BrowserCheck = {
  rule: {
    id: 'focus-not-obscured',
    description: 'Ensures an element that receives keyboard focus is not entirely hidden by sticky or fixed content',
    help: 'A focused element must not be hidden by author-created content',
    helpUrl: understanding('focus-not-obscured-minimum'),
    tags: ['wcag22aa', 'wcag2411'],
    actIds: [],
    impact: 'serious',
  },
  async run(ctx) {
    const walk = await ctx.walk();
    const sampled = walk.stops.filter((s) => s.sampled > 0);
    if (sampled.length === 0) return INAPPLICABLE;
    const failures: CheckNode[] = sampled
      .filter((s) => s.covered === s.sampled)
      .slice(0, MAX_LISTED)
      .map((s) => ({
        target: s.target,
        html: s.html,
        summary: `Fix this: when this element has keyboard focus it is entirely hidden behind ${s.coveredBy?.target ?? 'fixed or sticky content'}${s.coveredBy ? ` (${s.coveredBy.html})` : ''}. Give the page scroll-padding as tall as the sticky content, or move the content out of the way.`,
      }));
    return outcome(failures);
  },
};
